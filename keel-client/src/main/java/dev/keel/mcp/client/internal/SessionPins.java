package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.SessionChangedException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The session pins and write guards of the current thread, per transport.
 *
 * <p>Each thread holds two small identity maps (transport → pinned epoch, transport → guard),
 * copied on every change so that a nested block can be undone by restoring the previous map,
 * whatever the block threw. Transports call {@link #check} as late as they can, inside the
 * critical section that picks the session they write to.
 */
public final class SessionPins {

  private static final ThreadLocal<Map<ClientTransport, Long>> PINS = new ThreadLocal<>();
  private static final ThreadLocal<Map<ClientTransport, Runnable>> GUARDS = new ThreadLocal<>();

  private SessionPins() {}

  /** Runs {@code work} with this thread's writes through {@code transport} pinned. */
  public static <T> T pinned(ClientTransport transport, long epoch, Supplier<T> work) {
    Map<ClientTransport, Long> previous = PINS.get();
    Map<ClientTransport, Long> pins = copy(previous);
    pins.put(transport, epoch);
    PINS.set(pins);
    try {
      return work.get();
    } finally {
      restore(PINS, previous);
    }
  }

  /** Runs {@code work} with {@code guard} checked before this thread's writes. */
  public static <T> T guarded(ClientTransport transport, Runnable guard, Supplier<T> work) {
    Map<ClientTransport, Runnable> previous = GUARDS.get();
    Map<ClientTransport, Runnable> guards = copy(previous);
    guards.put(transport, guard);
    GUARDS.set(guards);
    try {
      return work.get();
    } finally {
      restore(GUARDS, previous);
    }
  }

  /** Runs {@code work} with the pin and guard of {@code transport} lifted. */
  public static <T> T unpinned(ClientTransport transport, Supplier<T> work) {
    Map<ClientTransport, Long> pins = PINS.get();
    Map<ClientTransport, Runnable> guards = GUARDS.get();
    boolean pinned = pins != null && pins.containsKey(transport);
    boolean guarded = guards != null && guards.containsKey(transport);
    if (!pinned && !guarded) {
      return work.get();
    }
    Map<ClientTransport, Long> lessPins = copy(pins);
    lessPins.remove(transport);
    Map<ClientTransport, Runnable> lessGuards = copy(guards);
    lessGuards.remove(transport);
    PINS.set(lessPins);
    GUARDS.set(lessGuards);
    try {
      return work.get();
    } finally {
      restore(PINS, pins);
      restore(GUARDS, guards);
    }
  }

  /**
   * Refuses a write through {@code transport} whose guard objects or whose pinned session has
   * ended. Call it in the critical section that picks the session.
   *
   * @throws SessionChangedException when the pinned epoch is not the current one
   */
  public static void check(ClientTransport transport, long currentEpoch) {
    Map<ClientTransport, Runnable> guards = GUARDS.get();
    Runnable guard = guards == null ? null : guards.get(transport);
    if (guard != null) {
      guard.run();
    }
    Map<ClientTransport, Long> pins = PINS.get();
    Long pinned = pins == null ? null : pins.get(transport);
    if (pinned != null && pinned != currentEpoch) {
      throw new SessionChangedException(pinned, currentEpoch);
    }
  }

  /** Returns the epoch this thread pinned {@code transport} to, or null. */
  public static Long pinOf(ClientTransport transport) {
    Map<ClientTransport, Long> pins = PINS.get();
    return pins == null ? null : pins.get(transport);
  }

  private static <V> Map<ClientTransport, V> copy(Map<ClientTransport, V> map) {
    Map<ClientTransport, V> copy = new IdentityHashMap<>();
    if (map != null) {
      copy.putAll(map);
    }
    return copy;
  }

  private static <V> void restore(ThreadLocal<Map<ClientTransport, V>> local,
      Map<ClientTransport, V> previous) {
    if (previous == null || previous.isEmpty()) {
      local.remove();
    } else {
      local.set(previous);
    }
  }
}
