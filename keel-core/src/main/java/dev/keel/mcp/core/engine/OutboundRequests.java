package dev.keel.mcp.core.engine;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;

/**
 * Requests this side sent to its peer and is waiting on, correlated by id.
 *
 * <p>Ids come from this table, so they are unique for its lifetime. A response whose id is not
 * waiting (unsolicited, late, duplicate) is discarded and completes nothing. The table is
 * bounded: past {@code maxPending} a new request fails at once rather than growing the table.
 */
public final class OutboundRequests {

  private final Map<RequestId, CompletableFuture<JsonRpcMessage>> waiting =
      new ConcurrentHashMap<>();
  private final AtomicLong nextId = new AtomicLong(1);
  private final int maxPending;
  private volatile String closedReason;

  /** Creates a table holding at most {@code maxPending} outstanding requests. */
  public OutboundRequests(int maxPending) {
    if (maxPending <= 0) {
      throw new IllegalArgumentException("maxPending must be positive: " + maxPending);
    }
    this.maxPending = maxPending;
  }

  /**
   * Reserves a fresh id and starts waiting for its response.
   *
   * @throws ConnectionClosedException when the table was closed
   * @throws IllegalStateException when {@code maxPending} requests are already outstanding
   */
  public Pending start() {
    if (closedReason != null) {
      throw new ConnectionClosedException(closedReason);
    }
    if (waiting.size() >= maxPending) {
      throw new IllegalStateException("too many requests waiting on the peer: " + maxPending);
    }
    RequestId id = RequestId.of(nextId.getAndIncrement());
    CompletableFuture<JsonRpcMessage> future = new CompletableFuture<>();
    waiting.put(id, future);
    if (closedReason != null) {
      waiting.remove(id);
      throw new ConnectionClosedException(closedReason);
    }
    return new Pending(id, future);
  }

  /**
   * Completes the request a response answers.
   *
   * @return false when nothing waits on that id (the response is discarded)
   */
  public boolean complete(JsonRpcMessage response) {
    RequestId id = response.id();
    if (id == null) {
      return false;
    }
    CompletableFuture<JsonRpcMessage> future = waiting.remove(id);
    return future != null && future.complete(response);
  }

  /**
   * Fails the request with this id (its exchange broke before an answer came).
   *
   * @return false when nothing waits on that id
   */
  public boolean fail(RequestId id, RuntimeException failure) {
    CompletableFuture<JsonRpcMessage> future = id == null ? null : waiting.remove(id);
    return future != null && future.completeExceptionally(failure);
  }

  /** Returns true while a request with this id waits. */
  public boolean isWaiting(RequestId id) {
    return id != null && waiting.containsKey(id);
  }

  /** Returns the number of requests waiting. */
  public int size() {
    return waiting.size();
  }

  /** Fails every waiting request and refuses new ones. */
  public void close(String reason) {
    closedReason = reason;
    for (RequestId id : waiting.keySet()) {
      CompletableFuture<JsonRpcMessage> future = waiting.remove(id);
      if (future != null) {
        future.completeExceptionally(new ConnectionClosedException(reason));
      }
    }
  }

  /** One outstanding request. */
  public final class Pending {
    private final RequestId id;
    private final CompletableFuture<JsonRpcMessage> future;

    private Pending(RequestId id, CompletableFuture<JsonRpcMessage> future) {
      this.id = id;
      this.future = future;
    }

    /** Returns the id to send the request with. */
    public RequestId id() {
      return id;
    }

    /**
     * Returns a stage completed with the peer's answer, or exceptionally when the exchange
     * failed; for callers that wait on something else at the same time.
     */
    public java.util.concurrent.CompletionStage<JsonRpcMessage> whenAnswered() {
      return future.minimalCompletionStage();
    }

    /** Stops waiting; a later response is discarded. */
    public void abandon() {
      waiting.remove(id, future);
      future.cancel(false);
    }

    /**
     * Blocks until the response comes, the timeout passes or the token is tripped.
     *
     * @return the result member of the response
     * @throws McpException when the peer answered with a JSON-RPC error
     * @throws RequestTimeoutException after {@code timeout}
     * @throws RequestCancelledException when the token was tripped, the thread interrupted or
     *     the peer answered that it cancelled the request itself
     * @throws ConnectionClosedException when the table was closed
     */
    public JsonNode await(String method, Duration timeout, CancellationToken token) {
      try (CancellationToken.Registration ignored = token.onCancel(() -> future.cancel(false))) {
        JsonRpcMessage answer = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (answer instanceof JsonRpcErrorResponse error
            && error.error().code() == dev.keel.mcp.core.ErrorCodes.REQUEST_CANCELLED) {
          // the peer stopped the work itself (an operator's cancel): ended as a cancel here
          throw new RequestCancelledException(Text.safe(error.error().message()));
        }
        if (answer instanceof JsonRpcErrorResponse error) {
          // the peer's text: escaped and capped before it becomes an exception message
          throw new McpException(error.error().code(), Text.safe(error.error().message()),
              error.error().data());
        }
        return ((JsonRpcResponse) answer).result();
      } catch (TimeoutException e) {
        abandon();
        throw new RequestTimeoutException(method, timeout);
      } catch (InterruptedException e) {
        abandon();
        Thread.currentThread().interrupt();
        throw new RequestCancelledException(token.reason() == null ? "interrupted" : token.reason());
      } catch (java.util.concurrent.CancellationException e) {
        abandon();
        throw new RequestCancelledException(token.reason());
      } catch (ExecutionException e) {
        abandon();
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new ConnectionClosedException("connection failed");
      }
    }
  }
}
