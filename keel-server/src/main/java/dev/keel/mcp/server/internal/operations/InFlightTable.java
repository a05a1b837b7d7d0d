package dev.keel.mcp.server.internal.operations;

import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests whose handlers run now, as an operator sees them: each under an opaque handle
 * that names neither its session nor its request id, so the console never holds either.
 */
public final class InFlightTable {

  /**
   * One running request.
   *
   * @param handle the operator's handle
   * @param method the JSON-RPC method
   * @param tool the tool it calls, or null
   * @param startNanos when its handler started
   * @param principal the name it runs as
   * @param modern whether it is a stateless-era request
   * @param sessionId its legacy session, or null
   * @param scope where {@code notifications/cancelled} names it, or null when only its stream
   *     (and so its token) can cancel it
   * @param requestId its JSON-RPC id
   * @param source its cancellation token
   * @param byOperator set once an operator cancelled it
   */
  public record Entry(String handle, String method, String tool, long startNanos,
      String principal, boolean modern, String sessionId, String scope, RequestId requestId,
      CancellationSource source, AtomicBoolean byOperator) {

    /** Returns true when an operator cancelled it. */
    public boolean cancelledByOperator() {
      return byOperator.get() && source.isCancelled();
    }
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong next = new AtomicLong(1);
  // Handles differ between restarts, so an old page cannot cancel a new process's request.
  private final String prefix = Long.toString(ThreadLocalRandom.current().nextLong() >>> 16, 36);

  /** Records a request whose handler starts now; remove it with {@link #remove}. */
  public Entry add(String method, String tool, String principal, boolean modern,
      String sessionId, String scope, RequestId requestId, CancellationSource source) {
    String handle = prefix + "-" + next.getAndIncrement();
    Entry e = new Entry(handle, method, tool, System.nanoTime(), principal, modern, sessionId,
        scope, requestId, source, new AtomicBoolean());
    entries.put(handle, e);
    return e;
  }

  /** Forgets a request whose handler ended. */
  public void remove(Entry entry) {
    entries.remove(entry.handle(), entry);
  }

  /** Returns the request under {@code handle}, if it still runs. */
  public Optional<Entry> get(String handle) {
    return handle == null ? Optional.empty() : Optional.ofNullable(entries.get(handle));
  }

  /** Returns the running requests, oldest first. */
  public List<Entry> all() {
    List<Entry> all = new ArrayList<>(entries.values());
    all.sort(Comparator.comparingLong(Entry::startNanos));
    return all;
  }
}
