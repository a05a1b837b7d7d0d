package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.client.internal.SessionPins;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.engine.CancelledNotice;
import dev.keel.mcp.core.engine.OutboundRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One request on the wire and back, in either era: an id from the pending table, the progress
 * token, the write (pinned to its session in the legacy era, with {@code _meta} in the stateless
 * one), the wait, and on a timeout or an interrupt the cancellation at the server. Nothing here
 * re-sends a request; the era's calls decide that.
 */
final class Exchanges {

  private static final Logger LOG = LoggerFactory.getLogger(Exchanges.class);

  private final ClientTransport transport;
  private final ClientState state;
  private final McpJson json;
  private final HostHandlers host;
  private final Implementation clientInfo;
  private final OutboundRequests pending;
  private final AtomicLong progressTokens = new AtomicLong(1);
  private final Map<String, ProgressListener> progress = new ConcurrentHashMap<>();
  private final CallObserving observing;

  Exchanges(ClientTransport transport, ClientState state, McpJson json, HostHandlers host,
      Implementation clientInfo, int maxPending, CallObserving observing) {
    this.transport = transport;
    this.observing = observing;
    this.state = state;
    this.json = json;
    this.host = host;
    this.clientInfo = clientInfo;
    this.pending = new OutboundRequests(maxPending);
  }

  /** The requests waiting for an answer: where the receiver completes them. */
  OutboundRequests pending() {
    return pending;
  }

  /**
   * One legacy exchange. The write is pinned to the epoch the request was built in, or to the
   * caller's own pin, so it can never land in a later session. {@code initialize} names no
   * protocol version: none is negotiated yet, and one left from the era probe must not reach a
   * server that checks it.
   */
  JsonNode legacy(String method, ObjectNode params, Duration timeout, ProgressListener listener,
      long built, boolean cancellable) {
    OutboundRequests.Pending waiting = pending.start();
    ObjectNode sent = params == null ? McpJson.object() : params.deepCopy();
    String token = listener == null ? null : watchProgress(sent, listener);
    String version = method.equals("initialize") ? null : state.version;
    CallObserving.Started observed = observing.start(method, sent, waiting.id(), Era.LEGACY,
        version, transport.sessionId());
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), method, sent);
    Long callerPin = SessionPins.pinOf(transport);
    long pin = callerPin != null ? callerPin : built;
    ClientTransport.Exchange exchange = null;
    try {
      exchange = transport.pinnedToSession(pin, () -> transport.send(request,
          ClientTransport.SendOptions.legacy(version)));
      JsonNode result = waiting.await(method, timeout, CancellationToken.none());
      observed.answered(result);
      return result;
    } catch (RequestTimeoutException | RequestCancelledException e) {
      observed.failed(e);
      if (cancellable) {
        cancelAtServer(request, null, false, pin, e instanceof RequestTimeoutException
            ? "timed out" : "cancelled by the client");
      }
      if (exchange != null) {
        // The answer is no longer wanted: stop reading its stream (after the cancellation,
        // so a server that resumes streams does not take the close for the only signal).
        exchange.abort();
      }
      throw e;
    } catch (RuntimeException e) {
      observed.failed(e);
      waiting.abandon();
      throw e;
    } finally {
      if (token != null) {
        progress.remove(token);
      }
    }
  }

  /**
   * One stateless exchange: {@code _meta} and headers; a timeout or an interrupt cancels it
   * (never {@code server/discover}, whose stream is only closed).
   *
   * @param schema for {@code tools/call}, the tool's input schema (its header arguments)
   * @param withTasks declare the tasks extension: the server may answer with a task
   */
  JsonNode stateless(String method, ObjectNode params, Duration timeout,
      ProgressListener listener, ObjectNode schema, boolean withTasks) {
    OutboundRequests.Pending waiting = pending.start();
    ObjectNode sent = params.deepCopy();
    statelessMeta(sent, withTasks);
    String token = listener == null ? null : watchProgress(sent, listener);
    CallObserving.Started observed = observing.start(method, sent, waiting.id(), Era.MODERN,
        state.version, null);
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), method, sent);
    ClientTransport.Exchange exchange = null;
    try {
      exchange = transport.send(request,
          new ClientTransport.SendOptions(true, state.version, schema));
      JsonNode result = waiting.await(method, timeout, CancellationToken.none());
      observed.answered(result);
      return result;
    } catch (RequestTimeoutException | RequestCancelledException e) {
      observed.failed(e);
      if (!method.equals("server/discover")) {
        cancelAtServer(request, exchange, true, null, e instanceof RequestTimeoutException
            ? "timed out" : "cancelled by the client");
      } else if (exchange != null) {
        exchange.abort();
      }
      throw e;
    } catch (RuntimeException e) {
      observed.failed(e);
      waiting.abandon();
      throw e;
    } finally {
      if (token != null) {
        progress.remove(token);
      }
    }
  }

  /** Puts the stateless {@code _meta} (version, client, capabilities, log level) on params. */
  void statelessMeta(ObjectNode params, boolean withTasks) {
    ObjectNode meta = params.get("_meta") instanceof ObjectNode m ? m : params.putObject("_meta");
    meta.put(MetaKeys.PROTOCOL_VERSION, state.version);
    meta.set(MetaKeys.CLIENT_INFO, json.toObject(clientInfo));
    ObjectNode capabilities = json.toObject(host.capabilities());
    if (withTasks) {
      // Declared only where the client takes a task: a server may answer any task-capable
      // call with a task once the client says it can follow one.
      ObjectNode extensions = capabilities.get("extensions") instanceof ObjectNode e ? e
          : capabilities.putObject("extensions");
      extensions.putObject(TaskCalls.EXTENSION);
    }
    meta.set(MetaKeys.CLIENT_CAPABILITIES, capabilities);
    LoggingLevel level = state.logLevel;
    if (level != null) {
      meta.put(MetaKeys.LOG_LEVEL, level.wireName());
    }
  }

  /**
   * Tells the server a request is no longer wanted: in the stateless era, on a transport with
   * per-request streams, by closing its stream; otherwise with {@code notifications/cancelled},
   * in the legacy era into the request's own session. Never for {@code initialize}; the request
   * is never re-sent.
   *
   * @param pin the epoch of the request's session (legacy), or null
   */
  void cancelAtServer(JsonRpcRequest request, ClientTransport.Exchange exchange, boolean modern,
      Long pin, String reason) {
    if (request.method().equals("initialize")) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      if (modern && transport.capabilities().perRequestStreams()) {
        if (exchange != null) {
          exchange.abort();
        }
        return;
      }
      JsonRpcNotification cancel = new CancelledNotice(request.id(), reason).toNotification();
      String version = state.version;
      if (pin == null) {
        transport.send(cancel, new ClientTransport.SendOptions(modern, version, null));
      } else {
        transport.pinnedToSession(pin, () -> transport.send(cancel,
            ClientTransport.SendOptions.legacy(version)));
      }
    } catch (RuntimeException e) {
      LOG.debug("could not tell the server to cancel {}: {}", request.method(),
          Text.safe(e.getMessage()));
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Returns the listener of a progress token the server sent, or null. */
  ProgressListener progressListener(JsonNode token) {
    if (token == null) {
      return null;
    }
    return progress.get(token.isNumber() ? Long.toString(token.asLong())
        : "s:" + token.asString());
  }

  /** Fails every waiting request: the client or the connection closed. */
  void close(String why) {
    pending.close(why);
  }

  private String watchProgress(ObjectNode params, ProgressListener listener) {
    long token = progressTokens.getAndIncrement();
    ObjectNode meta = params.get("_meta") instanceof ObjectNode m ? m : params.putObject("_meta");
    meta.put("progressToken", token);
    String key = Long.toString(token);
    progress.put(key, listener);
    return key;
  }
}
