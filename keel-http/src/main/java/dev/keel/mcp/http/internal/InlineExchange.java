package dev.keel.mcp.http.internal;

import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The stream of a non-blocking call running on the container thread inside {@code service()}.
 * Most such calls send nothing but their answer, which is then written straight to the response:
 * no async mode, no stream probes, no listener. The first message sent before the answer (a
 * progress notification, a log) turns the call into an ordinary {@link PostExchange}, and from
 * then on it behaves exactly as one.
 *
 * <p>Not thread-safe until upgraded, and need not be: until then only the container thread that
 * runs the call touches it (a non-blocking call's context is used on its own thread, and no
 * other part of the server reaches a request stream that never opened).
 */
final class InlineExchange implements RequestStream {

  private final HttpServletResponse response;
  private final JsonRpcCodec codec;
  private final boolean sseAccepted;
  private final boolean modern;
  private final Supplier<PostExchange> upgrade;
  private PostExchange exchange;
  private Consumer<String> cancel;

  /**
   * Creates the stream of a call.
   *
   * @param upgrade starts async mode and returns the ordinary exchange, when one is needed
   */
  InlineExchange(HttpServletResponse response, JsonRpcCodec codec, boolean sseAccepted,
      boolean modern, Supplier<PostExchange> upgrade) {
    this.response = response;
    this.codec = codec;
    this.sseAccepted = sseAccepted;
    this.modern = modern;
    this.upgrade = upgrade;
  }

  private PostExchange upgraded() {
    if (exchange == null) {
      exchange = upgrade.get();
      if (cancel != null) {
        exchange.cancelWith(cancel);
      }
    }
    return exchange;
  }

  /** See {@link PostExchange#cancelWith}. */
  void cancelWith(Consumer<String> cancelRequest) {
    this.cancel = cancelRequest;
    if (exchange != null) {
      exchange.cancelWith(cancelRequest);
    }
  }

  @Override
  public boolean send(JsonRpcMessage message) {
    return upgraded().send(message);
  }

  @Override
  public void closeForPolling() {
    upgraded().closeForPolling();
  }

  @Override
  public boolean hold(Runnable whenGone) {
    return upgraded().hold(whenGone);
  }

  @Override
  public void release() {
    if (exchange != null) {
      exchange.release();
    }
  }

  @Override
  public void finish(Optional<JsonRpcMessage> answer) {
    if (exchange != null) {
      exchange.finish(answer);
      return;
    }
    byte[] bytes = answer.map(codec::encode).orElse(null);
    int status = answer.map(r -> PostExchange.statusOf(modern, r)).orElse(200);
    PostExchange.writePlain(response, bytes, status, sseAccepted);
  }
}
