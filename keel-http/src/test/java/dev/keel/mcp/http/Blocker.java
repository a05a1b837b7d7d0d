package dev.keel.mcp.http;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool that blocks until released, cancelled or 30 s pass, and records what happened to it:
 * how often it was entered, the reason its token tripped with, whether its thread was
 * interrupted, and whether it returned normally. Optionally it logs first, so that its POST
 * answer becomes a stream before it blocks.
 */
final class Blocker implements ToolHandler {

  private final boolean logFirst;
  final AtomicInteger entries = new AtomicInteger();
  final AtomicReference<String> cancelReason = new AtomicReference<>();
  volatile CountDownLatch started = new CountDownLatch(1);
  volatile CountDownLatch interrupted = new CountDownLatch(1);
  volatile CountDownLatch ended = new CountDownLatch(1);
  volatile CountDownLatch release = new CountDownLatch(1);
  volatile boolean returnedNormally;

  Blocker(boolean logFirst) {
    this.logFirst = logFirst;
  }

  /** Forgets everything recorded (call between tests). */
  void reset() {
    release.countDown();
    entries.set(0);
    cancelReason.set(null);
    started = new CountDownLatch(1);
    interrupted = new CountDownLatch(1);
    ended = new CountDownLatch(1);
    release = new CountDownLatch(1);
    returnedNormally = false;
  }

  boolean awaitStarted() throws InterruptedException {
    return started.await(5, TimeUnit.SECONDS);
  }

  boolean awaitInterrupted(long millis) throws InterruptedException {
    return interrupted.await(millis, TimeUnit.MILLISECONDS);
  }

  boolean awaitEnded(long millis) throws InterruptedException {
    return ended.await(millis, TimeUnit.MILLISECONDS);
  }

  @Override
  public CallToolResult call(RequestContext ctx, ObjectNode arguments) throws Exception {
    entries.incrementAndGet();
    CountDownLatch myRelease = release;
    CountDownLatch myEnded = ended;
    ctx.cancellation().onCancel(() -> cancelReason.compareAndSet(null,
        ctx.cancellation().reason()));
    try {
      if (logFirst) {
        ctx.log(LoggingLevel.INFO, "started");
      }
      started.countDown();
      try {
        if (!myRelease.await(30, TimeUnit.SECONDS)) {
          return CallToolResult.error("never released");
        }
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
      returnedNormally = true;
      return CallToolResult.text("released");
    } finally {
      myEnded.countDown();
    }
  }
}
