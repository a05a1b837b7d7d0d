package dev.keel.mcp.server;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.server.transport.RequestStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A request's stream for tests that start calls themselves: keeps what it is sent and the answer. */
final class AnswerStream implements RequestStream {

  final List<JsonRpcMessage> messages = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Optional<JsonRpcMessage>> answer = new CompletableFuture<>();

  @Override
  public boolean send(JsonRpcMessage message) {
    return messages.add(message);
  }

  @Override
  public void finish(Optional<JsonRpcMessage> value) {
    answer.complete(value);
  }

  @Override
  public void closeForPolling() {}

  @Override
  public boolean hold(Runnable onGone) {
    return false;
  }

  @Override
  public void release() {}

  /** Returns true once the call was answered (or ended without an answer). */
  boolean finished() {
    return answer.isDone();
  }

  /** Waits (up to 5 s) for the answer. */
  Optional<JsonRpcMessage> await() {
    try {
      return answer.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the call was not answered", e);
    }
  }
}
