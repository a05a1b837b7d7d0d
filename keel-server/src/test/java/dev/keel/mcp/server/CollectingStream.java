package dev.keel.mcp.server;

import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.server.transport.MessageStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A request stream or listener that keeps what it is sent, or refuses everything. */
final class CollectingStream implements MessageStream {

  final List<JsonRpcMessage> messages = new CopyOnWriteArrayList<>();
  private final boolean accepts;

  private CollectingStream(boolean accepts) {
    this.accepts = accepts;
  }

  /** A stream that takes every message. */
  static CollectingStream open() {
    return new CollectingStream(true);
  }

  /** A stream that is gone: it records what it was offered and takes nothing. */
  static CollectingStream refusing() {
    return new CollectingStream(false);
  }

  @Override
  public boolean send(JsonRpcMessage message) {
    messages.add(message);
    return accepts;
  }

  /** Returns the methods of the notifications and requests sent, in order. */
  List<String> methods() {
    List<String> methods = new ArrayList<>();
    for (JsonRpcMessage m : messages) {
      if (m instanceof JsonRpcNotification n) {
        methods.add(n.method());
      } else if (m instanceof JsonRpcRequest r) {
        methods.add(r.method());
      }
    }
    return methods;
  }

  /** Returns the notifications with this method, in order. */
  List<JsonRpcNotification> notifications(String method) {
    List<JsonRpcNotification> found = new ArrayList<>();
    for (JsonRpcMessage m : messages) {
      if (m instanceof JsonRpcNotification n && n.method().equals(method)) {
        found.add(n);
      }
    }
    return found;
  }

  /** Returns the requests with this method, in order. */
  List<JsonRpcRequest> requests(String method) {
    List<JsonRpcRequest> found = new ArrayList<>();
    for (JsonRpcMessage m : messages) {
      if (m instanceof JsonRpcRequest r && r.method().equals(method)) {
        found.add(r);
      }
    }
    return found;
  }

  /** Waits until the {@code n}th (1-based) request with this method was sent and returns it. */
  JsonRpcRequest awaitRequest(String method, int n) {
    await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(2))
        .until(() -> requests(method).size() >= n);
    return requests(method).get(n - 1);
  }
}
