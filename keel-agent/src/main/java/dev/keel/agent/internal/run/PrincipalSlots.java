package dev.keel.agent.internal.run;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * How many statements each principal runs at once. A call over the limit is refused at once,
 * not queued: a queued call would hold a request thread and hide the overload from the caller.
 * One entry per principal: principals are authenticated identities, so the table stays as
 * small as the set of API keys.
 */
final class PrincipalSlots {

  private final int limit;
  private final ConcurrentHashMap<String, Semaphore> slots = new ConcurrentHashMap<>();

  PrincipalSlots(int limit) {
    this.limit = limit;
  }

  /** Takes a slot; returns false when the principal already runs its limit. */
  boolean tryAcquire(String fingerprint) {
    return slots.computeIfAbsent(fingerprint, f -> new Semaphore(limit)).tryAcquire();
  }

  void release(String fingerprint) {
    Semaphore s = slots.get(fingerprint);
    if (s != null) {
      s.release();
    }
  }

  int limit() {
    return limit;
  }
}
