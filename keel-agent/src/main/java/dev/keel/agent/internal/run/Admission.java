package dev.keel.agent.internal.run;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One of a principal's statement slots, taken when a call arrives (before its SQL is even
 * parsed) and given back when the last holder lets go: the request, and the worker that runs
 * its statement, which may outlive the request when the engine cannot stop in time. So a
 * principal's statements, running or still winding down in the database, never exceed its
 * limit.
 */
public final class Admission implements AutoCloseable {

  private final Runnable release;
  private final AtomicInteger holders = new AtomicInteger(1);

  Admission(Runnable release) {
    this.release = release;
  }

  /** Adds a holder (the worker); each holder closes once. */
  Admission retain() {
    if (holders.getAndIncrement() <= 0) {
      throw new IllegalStateException("the admission was already given back");
    }
    return this;
  }

  /** Lets go of it; the slot is free once every holder has. */
  @Override
  public void close() {
    if (holders.decrementAndGet() == 0) {
      release.run();
    }
  }
}
