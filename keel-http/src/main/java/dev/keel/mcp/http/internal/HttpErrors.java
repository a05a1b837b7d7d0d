package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import tools.jackson.databind.JsonNode;

/**
 * Writes transport errors: always a plain JSON-RPC error object, whatever the client accepts,
 * with a message that names what went wrong and nothing internal.
 */
public final class HttpErrors {

  /** The fixed body of every 401, whatever the reason. */
  static final String UNAUTHORIZED_BODY =
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Unauthorized\"}}";

  private final JsonRpcCodec codec;

  HttpErrors(JsonRpcCodec codec) {
    this.codec = codec;
  }

  void write(HttpServletResponse resp, int status, int code, String message) throws IOException {
    write(resp, status, null, code, message, null);
  }

  void write(HttpServletResponse resp, int status, RequestId id, int code, String message,
      JsonNode data) throws IOException {
    byte[] body = codec.encode(new JsonRpcErrorResponse(id, new JsonRpcError(code, message, data)));
    resp.setStatus(status);
    resp.setContentType("application/json");
    resp.setContentLength(body.length);
    resp.getOutputStream().write(body);
  }

  /** The fixed body of every 403 an authenticator asks for. */
  static final String FORBIDDEN_BODY =
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Forbidden\"}}";

  static void unauthorized(HttpServletResponse resp) throws IOException {
    refused(resp, dev.keel.mcp.http.Authenticator.Refusal.UNAUTHORIZED);
  }

  static void refused(HttpServletResponse resp, dev.keel.mcp.http.Authenticator.Refusal refusal)
      throws IOException {
    byte[] body = (refusal.status() == 403 ? FORBIDDEN_BODY : UNAUTHORIZED_BODY)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    resp.setStatus(refusal.status());
    resp.setHeader("WWW-Authenticate", refusal.challenge());
    resp.setContentType("application/json");
    resp.setContentLength(body.length);
    resp.getOutputStream().write(body);
  }
}
