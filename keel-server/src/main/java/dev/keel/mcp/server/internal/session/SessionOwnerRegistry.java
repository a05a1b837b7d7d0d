package dev.keel.mcp.server.internal.session;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * Binds session ids to the fingerprint of the principal that owns them.
 *
 * <p>{@link #bind} runs at {@code initialize} and never re-binds an id another principal owns
 * (the Ruby seed did: a hijack). {@link #ownedBy} is the check every request carrying a session
 * id passes. {@link #authorizeAttach} is trust on first use, only for notification channels no
 * {@code initialize} created; it is off unless enabled and only admits high-entropy ids.
 * {@link #forget} runs on DELETE or expiry only, never when a stream closes, so a reconnecting
 * owner keeps its claim. Blank ids and fingerprints always fail.
 *
 * <p>Bounded with strict least-recently-used eviction. Caffeine, used for the other bounded
 * tables, evicts by frequency (W-TinyLFU) and may drop a binding made a moment ago in favour of
 * old ones; an owner table must evict by recency, so this one is a plain access-ordered map.
 */
public final class SessionOwnerRegistry {

  /** The default bound. */
  public static final int DEFAULT_MAX_ENTRIES = 10_000;

  /** Ids a channel may be claimed under: at least 32 URL-safe characters (192 bits). */
  private static final Pattern HIGH_ENTROPY = Pattern.compile("[A-Za-z0-9_\\-]{32,128}");

  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, String> owners;
  private final boolean attachAllowed;

  /**
   * Creates a registry.
   *
   * @param maxEntries the most bindings kept
   * @param attachAllowed whether trust-on-first-use channels are allowed
   */
  public SessionOwnerRegistry(int maxEntries, boolean attachAllowed) {
    if (maxEntries <= 0) {
      throw new IllegalArgumentException("maxEntries must be positive: " + maxEntries);
    }
    this.attachAllowed = attachAllowed;
    this.owners = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
        return size() > maxEntries;
      }
    };
  }

  /**
   * Binds an id to its initializing owner, or refreshes the owner's own binding.
   *
   * @return false when the id is blank or bound to someone else (the binding stays)
   */
  public boolean bind(String sessionId, String fingerprint) {
    if (blank(sessionId) || blank(fingerprint)) {
      return false;
    }
    lock.lock();
    try {
      String current = owners.get(sessionId);
      if (current != null && !current.equals(fingerprint)) {
        return false;
      }
      owners.put(sessionId, fingerprint);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Returns true when the id is bound to exactly this fingerprint (and refreshes it). */
  public boolean ownedBy(String sessionId, String fingerprint) {
    if (blank(sessionId) || blank(fingerprint)) {
      return false;
    }
    lock.lock();
    try {
      return fingerprint.equals(owners.get(sessionId));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Trust on first use for a notification channel: an unclaimed high-entropy id is claimed by
   * the first principal to attach; its owner may attach again; anyone else is refused.
   *
   * @return false when attaching is disabled, an input is blank, the id is low-entropy, or
   *     another principal holds it
   */
  public boolean authorizeAttach(String sessionId, String fingerprint) {
    if (!attachAllowed || blank(sessionId) || blank(fingerprint)) {
      return false;
    }
    lock.lock();
    try {
      String current = owners.get(sessionId);
      if (current != null) {
        return current.equals(fingerprint);
      }
      if (!HIGH_ENTROPY.matcher(sessionId).matches()) {
        return false;
      }
      owners.put(sessionId, fingerprint);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Drops the binding of an id (DELETE, expiry). */
  public void forget(String sessionId) {
    if (sessionId == null) {
      return;
    }
    lock.lock();
    try {
      owners.remove(sessionId);
    } finally {
      lock.unlock();
    }
  }

  /** Returns how many bindings are held. */
  public int size() {
    lock.lock();
    try {
      return owners.size();
    } finally {
      lock.unlock();
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
