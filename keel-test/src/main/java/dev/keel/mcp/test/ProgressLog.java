package dev.keel.mcp.test;

import dev.keel.mcp.client.ProgressListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Progress reports of one call; the call's listener and the test read it at once. */
final class ProgressLog implements ProgressListener {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final List<ToolCall.Progress> reports = new ArrayList<>();

  @Override
  public void onProgress(double progress, Double total, String message) {
    lock.lock();
    try {
      reports.add(new ToolCall.Progress(progress, total, message));
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
  }

  List<ToolCall.Progress> snapshot() {
    lock.lock();
    try {
      return List.copyOf(reports);
    } finally {
      lock.unlock();
    }
  }

  void await(String tool, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (reports.size() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new org.opentest4j.AssertionFailedError("expected " + count + " progress "
              + "report(s) from tool " + tool + " within " + timeout.toMillis() + " ms but got "
              + reports.size() + ": " + reports, count, reports.size());
        }
        arrived.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for progress", e);
    } finally {
      lock.unlock();
    }
  }
}
