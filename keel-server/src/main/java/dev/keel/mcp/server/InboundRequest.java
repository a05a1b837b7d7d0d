package dev.keel.mcp.server;

import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.protocol.Era;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request from a client as a {@link RequestObserver} sees it when it starts: what it asks
 * for, in which era, from whom, and its {@code _meta} (where a tracer finds
 * {@code traceparent} and {@code tracestate}).
 *
 * <pre>{@code
 * RequestObserver observer = request -> {
 *   String parent = request.metaString("traceparent");
 *   log.debug("{} {} (parent {})", request.method(), request.target(), parent);
 *   return RequestObservation.NONE;
 * };
 * }</pre>
 *
 * @param method the JSON-RPC method, such as {@code tools/call}
 * @param target what the method names: the tool or prompt name, the resource URI; or null
 * @param id the request's id
 * @param era the era the request speaks
 * @param protocolVersion the protocol version it is served in
 * @param sessionId the legacy session's id, or null for a stateless request
 * @param principal the fingerprint of the caller's principal (it may name a person: record
 *     it only where that is allowed)
 * @param meta the request's {@code params._meta}, empty when it has none; read it, never
 *     change it
 * @param registered true when {@code target} names a tool or prompt this server has; a
 *     client may send any name, so metrics use a name as a tag only when this is true
 */
public record InboundRequest(String method, String target, RequestId id, Era era,
    String protocolVersion, String sessionId, String principal, ObjectNode meta,
    boolean registered) {

  /** Checks the required parts. */
  public InboundRequest {
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

  /** Returns the string value of a {@code _meta} entry, or null when absent or not a string. */
  public String metaString(String key) {
    return meta.get(key) != null && meta.get(key).isString() ? meta.get(key).stringValue()
        : null;
  }
}
