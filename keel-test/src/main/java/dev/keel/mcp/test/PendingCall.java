package dev.keel.mcp.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A tool call running on a thread of its own, started by {@link McpTestClient#start}: the test
 * can watch its progress, cancel it the way a user would (interrupting the caller, which makes
 * the client cancel it at the server: {@code notifications/cancelled} in a legacy session, the
 * stream closed in the stateless era), and then take its {@link ToolCall}.
 *
 * <pre>{@code
 * PendingCall call = client.start("long_job", "{}");
 * call.awaitProgress(1, Duration.ofSeconds(5));
 * call.cancel();
 * assertThat(call.await()).wasCancelled();
 * }</pre>
 */
public final class PendingCall {

  private final String tool;
  private final Thread caller;
  private final CompletableFuture<ToolCall> outcome;
  private final ProgressLog progress;

  PendingCall(String tool, Thread caller, CompletableFuture<ToolCall> outcome,
      ProgressLog progress) {
    this.tool = tool;
    this.caller = caller;
    this.outcome = outcome;
    this.progress = progress;
  }

  /** Returns the progress reports that arrived so far. */
  public List<ToolCall.Progress> progress() {
    return progress.snapshot();
  }

  /**
   * Waits until at least {@code count} progress reports arrived (the handler is running).
   *
   * @throws AssertionError when they do not arrive in time
   */
  public PendingCall awaitProgress(int count, Duration timeout) {
    progress.await(tool, count, timeout);
    return this;
  }

  /** Cancels the call by interrupting its caller; the client cancels it at the server. */
  public PendingCall cancel() {
    caller.interrupt();
    return this;
  }

  /** Returns true once the call ended. */
  public boolean isDone() {
    return outcome.isDone();
  }

  /** Waits up to 30 seconds for the call to end and returns what it came to. */
  public ToolCall await() {
    return await(Duration.ofSeconds(30));
  }

  /**
   * Waits for the call to end and returns what it came to.
   *
   * @throws AssertionError when it does not end in time
   */
  public ToolCall await(Duration timeout) {
    try {
      return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("expected tool " + tool + " to end within " + timeout.toMillis()
          + " ms but it was still running; progress so far: " + progress.snapshot());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for tool " + tool, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r
          : new IllegalStateException("tool " + tool + " failed", e.getCause());
    }
  }
}
