package dev.keel.mcp.core.engine;

import dev.keel.mcp.core.CancellationToken;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The tripping side of a {@link CancellationToken}: whoever runs a request owns one.
 *
 * <p>{@link #cancel(String)} takes effect once (the first reason wins), runs the registered
 * actions and interrupts the thread bound with {@link #bindThread()} unless interrupts are off.
 * Binding and interrupting share one lock, and {@link #unbindThread()} clears a pending
 * interrupt, so a late cancel can never interrupt whatever the thread runs next.
 */
public final class CancellationSource implements CancellationToken {

  private final ReentrantLock lock = new ReentrantLock();
  private final boolean interrupts;
  private volatile String reason;
  private Thread boundThread;
  private List<Runnable> actions = new ArrayList<>(2);

  /** Creates a source that interrupts its bound thread when tripped. */
  public CancellationSource() {
    this(true);
  }

  /**
   * Creates a source.
   *
   * @param interrupts whether tripping interrupts the bound thread
   */
  public CancellationSource(boolean interrupts) {
    this.interrupts = interrupts;
  }

  /**
   * Trips the token.
   *
   * @return true when this call cancelled it, false when it already was
   */
  public boolean cancel(String why) {
    List<Runnable> toRun;
    lock.lock();
    try {
      if (reason != null) {
        return false;
      }
      reason = why == null ? "cancelled" : why;
      toRun = actions;
      actions = null;
      if (interrupts && boundThread != null) {
        boundThread.interrupt();
      }
    } finally {
      lock.unlock();
    }
    for (Runnable action : toRun) {
      try {
        action.run();
      } catch (RuntimeException ignored) {
        // An action must not stop the others; its owner logs its own failures.
      }
    }
    return true;
  }

  /** Binds the calling thread: a later {@link #cancel} interrupts it. */
  public void bindThread() {
    lock.lock();
    try {
      boundThread = Thread.currentThread();
      if (interrupts && reason != null) {
        boundThread.interrupt();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Unbinds the calling thread and clears any interrupt a cancel left on it. */
  public void unbindThread() {
    lock.lock();
    try {
      if (boundThread == Thread.currentThread()) {
        boundThread = null;
      }
    } finally {
      lock.unlock();
    }
    Thread.interrupted();
  }

  @Override
  public boolean isCancelled() {
    return reason != null;
  }

  @Override
  public String reason() {
    return reason;
  }

  @Override
  public Registration onCancel(Runnable action) {
    lock.lock();
    try {
      if (reason == null) {
        actions.add(action);
        return () -> removeAction(action);
      }
    } finally {
      lock.unlock();
    }
    action.run();
    return () -> { };
  }

  private void removeAction(Runnable action) {
    lock.lock();
    try {
      if (actions != null) {
        actions.remove(action);
      }
    } finally {
      lock.unlock();
    }
  }
}
