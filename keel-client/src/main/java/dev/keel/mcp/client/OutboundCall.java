package dev.keel.mcp.client;

import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request the client is about to send, as a {@link CallObserver} sees it: what it asks for,
 * in which era, and its {@code _meta}, which the observer may add entries to (a tracer writes
 * {@code traceparent} and {@code tracestate} there) before the request is written.
 *
 * <pre>{@code
 * CallObserver observer = call -> {
 *   call.putMeta("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
 *   return RequestObservation.NONE;
 * };
 * }</pre>
 *
 * @param method the JSON-RPC method, such as {@code tools/call}
 * @param target what the method names: the tool or prompt name, the resource URI; or null
 * @param id the request's id
 * @param era the era it is sent in ({@link Era#LEGACY} or {@link Era#MODERN}; the era probe is
 *     {@link Era#MODERN})
 * @param protocolVersion the protocol version it is sent with, or null before one is known
 * @param sessionId the legacy session it is sent in, or null
 * @param meta the request's own {@code params._meta}: entries put here are sent
 */
public record OutboundCall(String method, String target, RequestId id, Era era,
    String protocolVersion, String sessionId, ObjectNode meta) {

  /** Checks the required parts. */
  public OutboundCall {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(era, "era");
    Objects.requireNonNull(meta, "meta");
  }

  /** Returns the tool's name for a {@code tools/call}, else null. */
  public String toolName() {
    return method.equals("tools/call") ? target : null;
  }

  /** Returns the prompt's name for a {@code prompts/get}, else null. */
  public String promptName() {
    return method.equals("prompts/get") ? target : null;
  }

  /** Returns the resource URI of a read, subscribe or unsubscribe, else null. */
  public String resourceUri() {
    return method.startsWith("resources/") && !method.endsWith("/list") ? target : null;
  }

  /**
   * Adds an entry to the request's {@code _meta}. Keel's own reserved keys
   * ({@code io.modelcontextprotocol/...}) and {@code progressToken} cannot be replaced.
   *
   * @throws IllegalArgumentException for a reserved key
   */
  public void putMeta(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (key.startsWith("io.modelcontextprotocol/") || key.equals("progressToken")) {
      throw new IllegalArgumentException("reserved _meta key: " + key);
    }
    meta.put(key, value);
  }
}
