package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The error pages of the embedded Jetty: every refusal Jetty makes itself, before or around the
 * servlet (a malformed request line, a header too large, an ambiguous URI such as {@code //mcp}
 * or {@code /mcp%2F}, a failure the servlet let escape), is answered with a plain JSON-RPC error
 * object, as every refusal of the servlet is. Jetty's own pages are HTML whatever the client
 * accepts, echo the request URI and name the server (issue 14, finding 11).
 *
 * <p>The body is fixed per status: {@code {"jsonrpc":"2.0","id":null,"error":{"code":…,
 * "message":"<reason phrase>"}}}. Nothing of the request and none of Jetty's own reason texts
 * reach the client; the reason phrase of the status is all it learns.
 *
 * <p>Two handlers because Jetty has two levels: the server's handles what happens before a
 * context is chosen (the parser's refusals), the servlet context's what happens inside it
 * (ambiguous paths, exceptions). Both answer every method, not only GET, POST and HEAD.
 */
public final class ContainerErrors {

  private ContainerErrors() {}

  /** Returns the error handler for {@code Server.setErrorHandler}. */
  public static Request.Handler forServer() {
    return new ServerLevel();
  }

  /** Returns the error handler for the servlet context. */
  public static org.eclipse.jetty.ee10.servlet.ErrorHandler forContext() {
    return new ContextLevel();
  }

  /** Returns the JSON-RPC error object answered for {@code status}. */
  static String body(int status) {
    String reason = HttpStatus.getMessage(status);
    if (reason == null || reason.isBlank() || !reason.matches("[A-Za-z0-9 '\\-]+")) {
      reason = status >= 500 ? "Internal error" : "Bad Request";
    }
    return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":" + codeOf(status)
        + ",\"message\":\"" + reason + "\"}}";
  }

  /** Server failures are -32603, refusals of what the client sent -32600 (SPEC §3.1). */
  static int codeOf(int status) {
    if (status == 503 || status == 429) {
      return ErrorCodes.SERVER_ERROR;
    }
    return status >= 500 ? ErrorCodes.INTERNAL_ERROR : ErrorCodes.INVALID_REQUEST;
  }

  private static final List<Charset> UTF8 = List.of(StandardCharsets.UTF_8);

  /** The parser's refusals, answered before any context runs. */
  private static final class ServerLevel extends org.eclipse.jetty.server.handler.ErrorHandler {
    ServerLevel() {
      setShowStacks(false);
      setShowCauses(false);
      setShowOrigin(false);
    }

    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code,
        String message, Throwable cause, Callback callback) throws IOException {
      // JSON whatever the client accepts: transport errors are plain JSON (SPEC §3.1).
      if (!generateAcceptableResponse(request, response, callback, "application/json", UTF8,
          code, message, cause)) {
        callback.succeeded();
      }
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message,
        Throwable cause) {
      writer.write(body(code));
    }
  }

  /**
   * Refusals inside the servlet context. It extends the servlet flavour so that Jetty completes
   * the servlet exchange after the page is written, as it does for its own pages.
   */
  private static final class ContextLevel extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
    ContextLevel() {
      setShowStacks(false);
      setShowCauses(false);
      setShowOrigin(false);
    }

    @Override
    public boolean errorPageForMethod(String method) {
      return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code,
        String message, Throwable cause, Callback callback) throws IOException {
      if (!generateAcceptableResponse(request, response, callback, "application/json", UTF8,
          code, message, cause)) {
        callback.succeeded();
      }
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message,
        Throwable cause) {
      writer.write(body(code));
    }
  }
}
