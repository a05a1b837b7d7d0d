package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The embedded server's fast path: a Jetty core handler in front of the servlet that serves a
 * non-blocking call on the thread that read it, Jetty's selector, with no servlet layer and no
 * hand-off to a pool thread (issue 22: about 30 % less server CPU per call than the servlet
 * path, measured in docs/performance.md). Jetty runs a handler on its selector only when the
 * handler says it never blocks, so this one says so and keeps its word: everything that might
 * block, and everything out of the ordinary, goes to the servlet on a pool thread.
 *
 * <p>It serves only what it can answer exactly as the servlet would, and decides that with the
 * servlet's own checks (and, for a DELETE, only a quiet session's end: {@link #end}): a POST to
 * the exact endpoint path, an admitted origin and host, a JSON content type, a declared length
 * within the limit, a body that arrived with its head, a built-in authenticator that accepts the
 * request, a JSON-RPC request (or the {@code notifications/initialized} every session starts
 * with) that decodes, the headers of its era in order, a live session it owns (or none yet, for
 * an {@code initialize} that names none), and an accepted answer type. Anything else, a
 * refusal included, is handed to the servlet untouched (the bytes read are given back as the
 * body's first bytes, {@link ReplayedBody}), and the servlet answers it with every gate in the
 * order of SPEC §3.1. So the lane can only ever serve a request the servlet would have served.
 *
 * <p>Once a call is resolved (registered for cancellation) it is never resolved again: a call
 * that must be handed off (a blocking tool) or refused for its scopes goes to the servlet
 * resolved, as a {@link Prepared} request attribute; a non-blocking call that sent progress or
 * logs before its answer goes there with those messages and its answer, and the servlet writes
 * them as it writes any such exchange (an SSE stream, with event ids where it resumes).
 *
 * <p>Only for a configuration that cannot block: the built-in local or API-key authenticator,
 * no fingerprint resolver, no rate limiter, no shared cluster ({@link HttpTransport#lane}).
 * A tool wrongly marked non-blocking that does block holds a selector, and every connection on
 * it waits: {@code ToolOptions.withNonBlocking} says so.
 */
final class SelectorLane extends Handler.Wrapper {

  private static final Logger LOG = LoggerFactory.getLogger(SelectorLane.class);

  /** The request attribute under which a call resolved here reaches the servlet. */
  static final String PREPARED = "dev.keel.mcp.http.internal.SelectorLane.prepared";

  /** The first buffer of a body; it grows, up to the declared length, as bytes arrive. */
  static final int FIRST_BYTES = 16 * 1024;

  /** The answers' content type, its bytes made once rather than on every answer. */
  private static final HttpField JSON_TYPE =
      new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/json");

  /** At most this many messages of one non-blocking call are kept until its answer. */
  static final int MAX_HELD_MESSAGES = 1_000;

  /**
   * A call the lane resolved and the servlet goes on with.
   *
   * @param session its legacy session, or null
   * @param call the call to start; null when it already ran here
   * @param modern whether it is a stateless request
   * @param sent what a call that ran here sent before its answer
   * @param polledAt how many of {@code sent} came before it closed its stream for polling, or
   *     -1 when it did not
   * @param answer the answer of a call that ran here (empty for a cancelled one)
   */
  record Prepared(ServerSession session, ServerCall call, boolean modern,
      List<JsonRpcMessage> sent, int polledAt, Optional<JsonRpcMessage> answer) {}

  private final HttpTransport transport;
  private final ServerEngine engine;
  private final HttpTransport.Options options;
  private final JsonRpcCodec codec;
  /** The API-key authenticator, or null for the local one. */
  private final BearerTokenAuthenticator keys;

  SelectorLane(HttpTransport transport, ServerEngine engine, HttpTransport.Options options,
      BearerTokenAuthenticator keys, Handler servlets) {
    super(servlets);
    this.transport = transport;
    this.engine = engine;
    this.options = options;
    this.codec = engine.codec();
    this.keys = keys;
  }

  @Override
  public InvocationType getInvocationType() {
    return InvocationType.NON_BLOCKING;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String method = request.getMethod();
    boolean post = "POST".equals(method);
    if (!post && !"DELETE".equals(method)
        || !options.path().equals(request.getHttpURI().getPath())) {
      return toServlet(request, response, callback);
    }
    HttpFields headers = request.getHeaders();
    if (!options.origins().admits(headers.get(HttpHeader.ORIGIN), headers.get(HttpHeader.HOST))) {
      return toServlet(request, response, callback);
    }
    if (!post) {
      return end(request, response, callback);
    }
    long declared = request.getLength();
    if (declared < 0 || declared > options.maxBodyBytes()
        || !Gates.isJson(headers.get(HttpHeader.CONTENT_TYPE))) {
      return toServlet(request, response, callback);
    }
    Principal principal = authenticate(headers);
    if (principal == null) {
      return toServlet(request, response, callback);
    }
    // Sized by what arrives, not by what the head declares: a head that declares the limit and
    // sends nothing more must not cost the limit (the servlet's reads grow the same way).
    byte[] body = new byte[(int) Math.min(declared, FIRST_BYTES)];
    int read = 0;
    boolean last = false;
    while (read < declared && !last) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        // the rest is still on its way: the servlet waits for it, without a thread
        return toServlet(request, response, callback, body, read, false);
      }
      if (Content.Chunk.isFailure(chunk)) {
        callback.failed(chunk.getFailure());
        return true;
      }
      ByteBuffer bytes = chunk.getByteBuffer();
      int n = (int) Math.min(bytes.remaining(), declared - read);
      if (read + n > body.length) {
        body = Arrays.copyOf(body, (int) Math.min(declared,
            Math.max(read + n, 2L * body.length)));
      }
      bytes.get(body, read, n);
      read += n;
      last = chunk.isLast();
      chunk.release();
    }
    if (read < declared) {
      return toServlet(request, response, callback, body, read, true);
    }
    try {
      return serve(request, response, callback, principal, body, last);
    } catch (RuntimeException e) {
      LOG.error("unexpected failure serving an MCP request", e);
      writeError(response, callback, 500, null, ErrorCodes.INTERNAL_ERROR, "Internal error", null);
      return true;
    }
  }

  /** The principal of a request under the built-in authenticator; null when it refuses. */
  private Principal authenticate(HttpFields headers) {
    return keys == null ? Principal.local()
        : keys.authenticate(headers.get(HttpHeader.AUTHORIZATION)).orElse(null);
  }

  /**
   * A DELETE: its owner ending a quiet session (nothing running, nothing pending, no stream
   * open) is answered here, as the servlet answers it (204). Ending any other session cancels
   * work and closes streams, which may wait: that, and every refusal, is the servlet's.
   */
  private boolean end(Request request, Response response, Callback callback) {
    HttpFields headers = request.getHeaders();
    String version = headers.get("MCP-Protocol-Version");
    String sid = headers.get("Mcp-Session-Id");
    if (!options.sessions() || sid == null || !Gates.validSessionId(sid)
        || version != null && !ProtocolVersion.isLegacy(version)
        // a DELETE that brings a body ends its connection: the servlet says so
        || request.getLength() > 0 || headers.contains(HttpHeader.TRANSFER_ENCODING)) {
      return toServlet(request, response, callback);
    }
    Principal principal = authenticate(headers);
    ServerSession session = principal == null ? null
        : engine.session(sid, principal).orElse(null);
    if (session == null || !transport.endIfQuiet(session)) {
      return toServlet(request, response, callback);
    }
    response.setStatus(204);
    callback.succeeded();
    return true;
  }

  /**
   * A request whose whole body is here. The checks run in the servlet's order (the era first,
   * then the era's own), and any that would refuse hands the request to the servlet.
   */
  private boolean serve(Request request, Response response, Callback callback,
      Principal principal, byte[] body, boolean last) {
    JsonRpcMessage message;
    try {
      message = codec.decode(body);
    } catch (RuntimeException e) {
      return toServlet(request, response, callback, body, body.length, last);
    }
    JsonRpcRequest call = message instanceof JsonRpcRequest r ? r : null;
    // of the notifications, only the one every session starts with: whatever another one
    // sets off (a client's answer waking a handler, roots changing) is the servlet's to run
    JsonRpcNotification initialized = message instanceof JsonRpcNotification n
        && n.method().equals("notifications/initialized") ? n : null;
    if (call == null && initialized == null) {
      return toServlet(request, response, callback, body, body.length, last);
    }
    HttpFields headers = request.getHeaders();
    String accept = headers.get(HttpHeader.ACCEPT);
    boolean sse = Gates.accepts(accept, "text/event-stream");
    boolean acceptable = sse || Gates.accepts(accept, "application/json");
    String version = headers.get("MCP-Protocol-Version");
    String sid = headers.get("Mcp-Session-Id");
    Era era = Era.of(new Era.Facts(call != null ? call.method() : initialized.method(),
        call != null ? call.params() : initialized.params(), version, sid,
        headers.get("Mcp-Method"), headers.get("Mcp-Name")));
    if (era == Era.MODERN) {
      if (call == null || !acceptable) {
        return toServlet(request, response, callback, body, body.length, last);
      }
      ServerCall resolved = engine.call(Edge.of(null, principal, Era.MODERN), call);
      Optional<ModernGate.Refusal> refusal = ModernGate.check(headers::get, call,
          resolved.toolInputSchema().orElse(null));
      if (refusal.isPresent()) {
        ModernGate.Refusal r = refusal.get();
        writeError(response, callback, r.status(), call.id(), r.code(), r.message(), r.data());
        return true;
      }
      return start(request, response, callback, null, resolved, true, sse);
    }
    if (call != null && call.method().equals("initialize")) {
      if (sid != null) {
        // a session re-initialized, or another's id: the servlet's owner rules decide
        return toServlet(request, response, callback, body, body.length, last);
      }
      return initialize(response, callback, principal, call);
    }
    if (version != null && !ProtocolVersion.isLegacy(version)
        || sid != null && !Gates.validSessionId(sid)) {
      return toServlet(request, response, callback, body, body.length, last);
    }
    ServerSession session = null;
    if (options.sessions()) {
      session = sid == null ? null : engine.session(sid, principal).orElse(null);
      if (session == null) {
        return toServlet(request, response, callback, body, body.length, last);
      }
    }
    if (call == null) {
      engine.deliver(Edge.of(session, principal, Era.LEGACY), initialized);
      response.setStatus(202);
      callback.succeeded();
      return true;
    }
    if (!acceptable) {
      return toServlet(request, response, callback, body, body.length, last);
    }
    return start(request, response, callback, session,
        engine.call(Edge.of(session, principal, Era.LEGACY), call), false, sse);
  }

  /** A new legacy session, answered as the servlet answers it. */
  private boolean initialize(Response response, Callback callback, Principal principal,
      JsonRpcRequest call) {
    InitializeOutcome outcome = engine.initialize(principal, call, null);
    if (outcome.session() == null) {
      if (outcome.response() instanceof JsonRpcErrorResponse e
          && e.error().code() == ErrorCodes.SERVER_ERROR) {
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "5");
        writeError(response, callback, 503, call.id(), e.error().code(), e.error().message(),
            null);
        return true;
      }
      write(response, callback, 200, codec.encode(outcome.response()));
      return true;
    }
    if (!options.sessions()) {
      outcome.session().close();
    } else {
      transport.track(outcome.session());
      response.getHeaders().put("Mcp-Session-Id", outcome.session().id());
    }
    write(response, callback, 200, codec.encode(outcome.response()));
    return true;
  }

  /** Runs a resolved call here when it is non-blocking; otherwise the servlet starts it. */
  private boolean start(Request request, Response response, Callback callback,
      ServerSession session, ServerCall call, boolean modern, boolean sse) {
    if (!call.runsInline() || !call.missingScopes().isEmpty()) {
      request.setAttribute(PREPARED, new Prepared(session, call, modern, List.of(), -1, null));
      return toServlet(request, response, callback);
    }
    HeldStream stream = new HeldStream(request, response, callback, session, modern, sse);
    if (!call.start(stream, true)) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
      writeError(response, callback, 503, call.request().id(), ErrorCodes.SERVER_ERROR,
          "Server busy", null);
    }
    return true;
  }

  /**
   * The stream of a call running here. Its answer alone is written straight to the response;
   * whatever it sent first is kept and, with the answer, handed to the servlet.
   */
  private final class HeldStream implements RequestStream {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final ServerSession session;
    private final boolean modern;
    private final boolean sse;
    private final List<JsonRpcMessage> sent = new ArrayList<>();
    private int polledAt = -1;

    HeldStream(Request request, Response response, Callback callback, ServerSession session,
        boolean modern, boolean sse) {
      this.request = request;
      this.response = response;
      this.callback = callback;
      this.session = session;
      this.modern = modern;
      this.sse = sse;
    }

    @Override
    public synchronized boolean send(JsonRpcMessage message) {
      if (sent.size() >= MAX_HELD_MESSAGES) {
        return false;
      }
      sent.add(message);
      return true;
    }

    @Override
    public synchronized void closeForPolling() {
      // the servlet closes the stream at this point of the call's messages, when it writes them
      if (polledAt < 0) {
        polledAt = sent.size();
      }
    }

    @Override
    public boolean hold(Runnable onGone) {
      return false;
    }

    @Override
    public void release() {
      // never held
    }

    @Override
    public void finish(Optional<JsonRpcMessage> answer) {
      List<JsonRpcMessage> before;
      int polled;
      synchronized (this) {
        before = List.copyOf(sent);
        polled = polledAt;
      }
      if (!before.isEmpty() || polled >= 0) {
        request.setAttribute(PREPARED, new Prepared(session, null, modern, before, polled,
            answer));
        toServlet(request, response, callback);
        return;
      }
      if (answer.isPresent()) {
        write(response, callback, PostExchange.statusOf(modern, answer.get()),
            codec.encode(answer.get()));
      } else if (sse) {
        // a cancelled call: an empty event stream, as the servlet ends one
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream;charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        response.getHeaders().put("X-Accel-Buffering", "no");
        response.write(true, null, callback);
      } else {
        response.setStatus(204);
        callback.succeeded();
      }
    }
  }

  private boolean toServlet(Request request, Response response, Callback callback,
      byte[] body, int read, boolean last) {
    Request replayed = read == 0 && !last ? request
        : new ReplayedBody(request, Content.Chunk.from(ByteBuffer.wrap(body, 0, read), last));
    return toServlet(replayed, response, callback);
  }

  /** Hands the request to the servlet on one of Jetty's pool threads, where it may block. */
  private boolean toServlet(Request request, Response response, Callback callback) {
    Handler servlets = getHandler();
    try {
      getServer().getThreadPool().execute(() -> {
        try {
          if (!servlets.handle(request, response, callback)) {
            Response.writeError(request, response, callback, 404);
          }
        } catch (Throwable t) {
          Response.writeError(request, response, callback, t);
        }
      });
    } catch (RejectedExecutionException e) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
      writeError(response, callback, 503, null, ErrorCodes.SERVER_ERROR, "Server busy", null);
    }
    return true;
  }

  private void writeError(Response response, Callback callback, int status, RequestId id,
      int code, String message, JsonNode data) {
    write(response, callback, status,
        codec.encode(new JsonRpcErrorResponse(id, new JsonRpcError(code, message, data))));
  }

  private static void write(Response response, Callback callback, int status, byte[] bytes) {
    response.setStatus(status);
    response.getHeaders().put(JSON_TYPE);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }
}
