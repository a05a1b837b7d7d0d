package dev.keel.mcp.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The keys that seal and open the {@code requestState} of multi-round-trip requests (2026-07-28).
 * A client carries a sealed state from one round to the next, possibly to another node behind a
 * load balancer: every node that may receive it must hold the key it was sealed with. The first
 * key seals; every listed key opens, so a rotated-out key keeps opening the states sealed under
 * it while it stays listed.
 *
 * <p>{@link #of} is a fixed ring (what {@link McpServer.Builder#requestStateKey} makes); a shared
 * ring (keel-redis) lets several nodes rotate together. Anyone who can read the keys can forge
 * states for any principal, so a ring must be kept as secret as the keys themselves.
 */
public interface RequestStateKeys {

  /**
   * Returns the keys as they stand, the sealing key first; each has at least 32 bytes. A ring
   * returns the same list object as long as nothing changed, which lets the sealer keep what it
   * derived from them.
   */
  List<byte[]> keys();

  /**
   * Called when a presented state names a key that {@link #keys()} does not list: a shared ring
   * may have rotated on another node. Returns the keys after looking again (a ring bounds how
   * often it really does). The default looks nowhere.
   */
  default List<byte[]> refresh() {
    return keys();
  }

  /**
   * Returns a fixed ring: {@code current} seals, it and {@code previous} open.
   *
   * @throws IllegalArgumentException when a key is shorter than 32 bytes
   */
  static RequestStateKeys of(byte[] current, List<byte[]> previous) {
    List<byte[]> all = new ArrayList<>();
    all.add(Objects.requireNonNull(current, "current").clone());
    for (byte[] key : previous) {
      all.add(key.clone());
    }
    for (byte[] key : all) {
      if (key.length < 32) {
        throw new IllegalArgumentException("requestState keys need at least 32 bytes");
      }
    }
    List<byte[]> fixed = List.copyOf(all);
    return () -> fixed;
  }
}
