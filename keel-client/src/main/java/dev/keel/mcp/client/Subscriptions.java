package dev.keel.mcp.client;

import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.engine.OutboundRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Resource subscriptions in both eras. Legacy: {@code resources/subscribe} in the session, kept
 * in the client's state so a replacement session renews it. Stateless: a
 * {@code subscriptions/listen} request whose stream stays open, live once the server
 * acknowledged the filter, ended by closing that request.
 */
final class Subscriptions {

  private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);

  private final ClientTransport transport;
  private final ClientState state;
  private final Exchanges exchanges;
  private final Caller caller;
  private final Duration timeout;
  private final Map<String, CompletableFuture<ObjectNode>> acknowledgements =
      new ConcurrentHashMap<>();

  Subscriptions(ClientTransport transport, ClientState state, Exchanges exchanges, Caller caller,
      Duration timeout) {
    this.transport = transport;
    this.state = state;
    this.exchanges = exchanges;
    this.caller = caller;
    this.timeout = timeout;
  }

  /** Subscribes in the connection's era; returns once the server took the subscription. */
  ResourceSubscription subscribe(String uri) {
    if (state.modern()) {
      return listen(uri);
    }
    caller.call("resources/subscribe", McpJson.object().put("uri", uri), null);
    LegacySubscription s = new LegacySubscription(uri);
    state.legacySubscriptions.put(s, uri);
    return s;
  }

  /** Completes the subscription a {@code notifications/subscriptions/acknowledged} names. */
  void acknowledged(ObjectNode params) {
    JsonNode id = params.path("_meta").get(MetaKeys.SUBSCRIPTION_ID);
    CompletableFuture<ObjectNode> ack = id == null ? null
        : acknowledgements.get(id.isNumber() ? Long.toString(id.asLong()) : id.asString());
    if (ack != null) {
      ack.complete(params);
    }
  }

  /** A legacy subscription: lives in the session, renewed by recovery. */
  private final class LegacySubscription implements ResourceSubscription {
    private final String uri;
    private volatile boolean open = true;

    LegacySubscription(String uri) {
      this.uri = uri;
    }

    @Override
    public String uri() {
      return uri;
    }

    @Override
    public void close() {
      if (!open) {
        return;
      }
      open = false;
      state.legacySubscriptions.remove(this);
      if (!state.closed) {
        try {
          caller.call("resources/unsubscribe", McpJson.object().put("uri", uri), null);
        } catch (RuntimeException e) {
          LOG.debug("unsubscribe from {} failed: {}", Text.safe(uri), Text.safe(e.getMessage()));
        }
      }
    }
  }

  /**
   * A stateless subscription: a {@code subscriptions/listen} request whose stream stays open.
   * Returns once the server acknowledged the filter.
   */
  private ResourceSubscription listen(String uri) {
    OutboundRequests.Pending waiting = exchanges.pending().start();
    ObjectNode params = McpJson.object();
    params.putObject("notifications").putArray("resourceSubscriptions").add(uri);
    exchanges.statelessMeta(params, false);
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), "subscriptions/listen", params);
    String key = String.valueOf(request.id().value());
    CompletableFuture<ObjectNode> ack = new CompletableFuture<>();
    acknowledgements.put(key, ack);
    ClientTransport.Exchange exchange;
    try {
      exchange = transport.send(request,
          new ClientTransport.SendOptions(true, state.version, null));
    } catch (RuntimeException e) {
      acknowledgements.remove(key);
      waiting.abandon();
      throw e;
    }
    Listening listening = new Listening(uri, request, exchange, waiting, key);
    CompletableFuture<Object> first = CompletableFuture.anyOf(ack,
        waiting.whenAnswered().toCompletableFuture());
    try {
      Object outcome = first.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      honoured(outcome, uri);
    } catch (TimeoutException e) {
      listening.stop();
      throw new RequestTimeoutException("subscriptions/listen", timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      listening.stop();
      throw new RequestCancelledException("interrupted");
    } catch (ExecutionException e) {
      listening.stop();
      throw e.getCause() instanceof RuntimeException r ? r
          : new ConnectionClosedException("the subscription failed");
    } catch (RuntimeException e) {
      listening.stop();
      throw e;
    }
    return listening;
  }

  /** Checks the first thing that came back: the acknowledgement must name the URI. */
  private static void honoured(Object outcome, String uri) {
    if (outcome instanceof JsonRpcErrorResponse e) {
      JsonRpcError error = e.error();
      throw new McpException(error.code(), Text.safe(error.message()), error.data());
    }
    if (outcome instanceof JsonRpcResponse) {
      throw new InvalidServerResponseException("the server ended the subscription at once");
    }
    JsonNode watched = ((ObjectNode) outcome).path("notifications")
        .path("resourceSubscriptions");
    for (JsonNode u : watched) {
      if (u.isString() && u.stringValue().equals(uri)) {
        return;
      }
    }
    throw new McpException(ErrorCodes.RESOURCE_NOT_FOUND, "the server does not watch "
        + Text.safe(uri));
  }

  /** A live {@code subscriptions/listen}: closing it cancels the request. */
  private final class Listening implements ResourceSubscription {
    private final String uri;
    private final JsonRpcRequest request;
    private final ClientTransport.Exchange exchange;
    private final OutboundRequests.Pending waiting;
    private final String key;
    private volatile boolean open = true;

    Listening(String uri, JsonRpcRequest request, ClientTransport.Exchange exchange,
        OutboundRequests.Pending waiting, String key) {
      this.uri = uri;
      this.request = request;
      this.exchange = exchange;
      this.waiting = waiting;
      this.key = key;
    }

    @Override
    public String uri() {
      return uri;
    }

    @Override
    public void close() {
      if (open) {
        open = false;
        stop();
      }
    }

    void stop() {
      acknowledgements.remove(key);
      waiting.abandon();
      exchanges.cancelAtServer(request, exchange, true, null, "unsubscribed");
    }
  }
}
