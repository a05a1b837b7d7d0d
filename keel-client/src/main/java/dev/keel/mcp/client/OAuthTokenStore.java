package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.FileTokenStore;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where an OAuth client keeps what it must not lose between requests, or between runs: access
 * and refresh tokens per server, client registrations per authorization server. Values are
 * secrets; a store must keep them from other users. {@link #inMemory()} forgets them with the
 * process; {@link #file(Path)} keeps them in a file only its owner can read, for a command line.
 * A host may keep them anywhere else (a keychain, a vault) by implementing these three methods.
 */
public interface OAuthTokenStore {

  /** Returns the value stored under {@code key}. */
  Optional<String> get(String key);

  /** Stores {@code value} under {@code key}, replacing what was there. */
  void put(String key, String value);

  /** Forgets {@code key}. */
  void remove(String key);

  /** Returns a store that lives as long as the process. */
  static OAuthTokenStore inMemory() {
    ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();
    return new OAuthTokenStore() {
      @Override
      public Optional<String> get(String key) {
        return Optional.ofNullable(map.get(key));
      }

      @Override
      public void put(String key, String value) {
        map.put(key, value);
      }

      @Override
      public void remove(String key) {
        map.remove(key);
      }
    };
  }

  /**
   * Returns a store in the JSON file {@code path}, created readable and writable by its owner
   * only (and its directory by its owner only), replaced atomically on every change.
   *
   * @throws IllegalArgumentException when the file exists and others may read it
   */
  static OAuthTokenStore file(Path path) {
    return new FileTokenStore(path);
  }
}
