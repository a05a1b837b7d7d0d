package dev.keel.mcp.http.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes all request bodies still being read may hold between them. Each body reserves the
 * capacity of its buffer before it grows it and gives everything back when it ends, so many slow
 * clients, even authenticated ones, can hold at most this much of the heap; past it a body is
 * refused (503) rather than buffered.
 */
final class BodyBudget {

  private final long capacity;
  private final AtomicLong reserved = new AtomicLong();

  BodyBudget(long capacity) {
    this.capacity = capacity;
  }

  /** Takes {@code bytes} from the budget; false, taking nothing, when that would exceed it. */
  boolean reserve(long bytes) {
    while (true) {
      long now = reserved.get();
      if (now + bytes > capacity) {
        return false;
      }
      if (reserved.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back {@code bytes} taken by {@link #reserve}. */
  void release(long bytes) {
    if (bytes > 0) {
      reserved.addAndGet(-bytes);
    }
  }

  /** Returns how many bytes bodies in progress hold now. */
  long reserved() {
    return reserved.get();
  }
}
