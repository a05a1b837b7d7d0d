package dev.keel.mcp.server.internal.metrics;

import dev.keel.mcp.server.ServerMetrics;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/** The live counters behind {@link ServerMetrics}. */
public final class ServerCounters implements ServerMetrics {

  private final IntSupplier sessions;
  private final IntSupplier ownerBindings;
  private final IntSupplier runningTasks;
  private final LongAdder tasksCreated = new LongAdder();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger listening = new AtomicInteger();
  private final LongAdder cancellations = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder refusedSessions = new LongAdder();
  private final LongAdder refusedRequests = new LongAdder();

  /** Creates counters; the session and binding counts are read from the suppliers. */
  public ServerCounters(IntSupplier sessions, IntSupplier ownerBindings) {
    this(sessions, ownerBindings, () -> 0);
  }

  /** Creates counters that also read the running tasks from {@code runningTasks}. */
  public ServerCounters(IntSupplier sessions, IntSupplier ownerBindings,
      IntSupplier runningTasks) {
    this.sessions = sessions;
    this.ownerBindings = ownerBindings;
    this.runningTasks = runningTasks;
  }

  @Override
  public int runningTasks() {
    return runningTasks.getAsInt();
  }

  @Override
  public long tasksCreated() {
    return tasksCreated.sum();
  }

  /** A task was created. */
  public void taskCreated() {
    tasksCreated.increment();
  }

  @Override
  public int ownerBindings() {
    return ownerBindings.getAsInt();
  }

  @Override
  public int sessions() {
    return sessions.getAsInt();
  }

  @Override
  public int inFlightRequests() {
    return inFlight.get();
  }

  @Override
  public int listeningStreams() {
    return listening.get();
  }

  @Override
  public long cancellations() {
    return cancellations.sum();
  }

  @Override
  public long evictions() {
    return evictions.sum();
  }

  @Override
  public long refusedSessions() {
    return refusedSessions.sum();
  }

  @Override
  public long refusedRequests() {
    return refusedRequests.sum();
  }

  /** A handler started. */
  public void requestStarted() {
    inFlight.incrementAndGet();
  }

  /** A handler ended. */
  public void requestEnded() {
    inFlight.decrementAndGet();
  }

  /** A session got a listening stream where it had none. */
  public void listenerAttached() {
    listening.incrementAndGet();
  }

  /** A session lost its listening stream. */
  public void listenerDetached() {
    listening.decrementAndGet();
  }

  /** A request was cancelled. */
  public void cancelled() {
    cancellations.increment();
  }

  /** A session was evicted for idleness. */
  public void evicted() {
    evictions.increment();
  }

  /** A new session was refused. */
  public void sessionRefused() {
    refusedSessions.increment();
  }

  /** A request was refused for lack of capacity. */
  public void requestRefused() {
    refusedRequests.increment();
  }
}
