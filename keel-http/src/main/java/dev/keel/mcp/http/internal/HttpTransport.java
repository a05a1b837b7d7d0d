package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.FingerprintResolver;
import dev.keel.mcp.http.RateLimiter;
import dev.keel.mcp.http.spi.EventStore;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.ClusterUnavailableException;
import dev.keel.mcp.server.cluster.SessionRecord;
import dev.keel.mcp.server.transport.HandlerThreads;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streamable HTTP, both eras: the gates of SPEC §3.1 (cheap and unauthenticated checks first),
 * then sessions, then the engine. One departure from SPEC §3.1, by issue 14: a POST is
 * authenticated before any byte of its body is read, so the checks that need the body (the
 * JSON, the stateless header checks, the legacy version header) come after authentication.
 */
public final class HttpTransport implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);

  /**
   * The transport's configuration.
   *
   * @param path the endpoint path
   * @param healthPath the health path, or null
   * @param origins the DNS-rebinding policy
   * @param authenticator who requests run as
   * @param fingerprintResolver the operator's owner resolver, or null
   * @param rateLimiter the pre-auth limiter, or null
   * @param maxBodyBytes the largest body
   * @param sessions whether legacy sessions are on
   * @param keepAlive the keep-alive interval
   * @param retry the reconnection delay sent before the server closes a stream
   * @param events the event store, or null for no resumability
   * @param maxListeningStreams the most open GET streams
   * @param bodyTimeout how long a POST body may take to arrive after its head
   * @param maxBufferedBodyBytes the bytes all bodies still arriving may buffer between them
   * @param documents public JSON documents served on GET at their exact paths before any
   *     authentication (protected-resource metadata), by path
   */
  public record Options(String path, String healthPath, OriginPolicy origins,
      Authenticator authenticator, FingerprintResolver fingerprintResolver,
      RateLimiter rateLimiter, int maxBodyBytes, boolean sessions, Duration keepAlive,
      Duration retry, EventStore events, int maxListeningStreams, Duration bodyTimeout,
      long maxBufferedBodyBytes, Map<String, byte[]> documents) {}

  private final ServerEngine engine;
  private final Options options;
  private final HttpErrors errors;
  private final ExecutorService executor;
  private final TransportContext context;
  private final Map<String, SessionStreams> sessionStreams = new ConcurrentHashMap<>();
  private final Gates gates;
  private final Forwarder forwarder;
  /** Null on a node alone: only a shared cluster routes sessions to other nodes. */
  private final SessionRoutes routes;
  private final Authentication authentication;
  private final BodyRead.Limits bodies;
  /**
   * Non-blocking calls running on container threads; past the limit they are handed off like any
   * other call, so a tool wrongly marked non-blocking holds some container threads, never the
   * whole pool (Jetty's default is 200). Not lower: under load many container threads are inside
   * {@code service()} at once even on one core (each wakes the next), and with a bound of 4 most
   * calls at 64 connections were handed off after all.
   */
  private final Semaphore inlineSlots = new Semaphore(inlineLimit());
  private final AtomicInteger openListening = new AtomicInteger();

  /** How often a running request's open stream is written to. */
  static final Duration PROBE = Duration.ofMillis(100);
  /** How long a running request may stay silent before its stream opens (as SSE). */
  static final Duration SSE_AFTER = Duration.ofMillis(200);

  /** Returns how many non-blocking calls run on container threads at once, at most. */
  public static int inlineLimit() {
    return Math.max(64, 16 * Runtime.getRuntime().availableProcessors());
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Creates the transport for an engine. */
  public HttpTransport(ServerEngine engine, Options options) {
    this.engine = engine;
    this.options = options;
    this.errors = new HttpErrors(engine.codec());
    this.executor = HandlerThreads.newExecutor("keel-http");
    KeepAlive keepAlive = new KeepAlive(options.keepAlive(), executor);
    // A servlet learns that a client went away only when a write fails, so a running request's
    // stream is written to often: a client that closes it (the stateless era's cancellation)
    // is noticed within a few hundred milliseconds, not at the next idle keep-alive.
    Duration probe = min(PROBE, options.keepAlive());
    KeepAlive probes = new KeepAlive(probe, executor);
    this.context = new TransportContext(engine.codec(), options.events(), keepAlive, probes,
        executor, options.retry().toMillis(), options.keepAlive().toNanos(),
        min(SSE_AFTER, options.keepAlive()).toNanos(), openListening);
    this.gates = new Gates(options, errors, engine.cluster());
    this.forwarder = new Forwarder(engine.cluster().nodeId());
    // its cache is the one Caffeine a lone node's start would build, 2.6 MB of classes and
    // allocation for nothing (docs/performance.md)
    this.routes = engine.cluster().shared() ? new SessionRoutes() : null;
    this.authentication = new Authentication(options.authenticator(),
        options.fingerprintResolver());
    // A read is timed out within a quarter of its timeout (at most 250 ms late).
    Duration bodyTick = min(Duration.ofMillis(250), options.bodyTimeout().dividedBy(4));
    this.bodies = new BodyRead.Limits(options.maxBodyBytes(), options.bodyTimeout().toNanos(),
        new BodyBudget(options.maxBufferedBodyBytes()), new KeepAlive(bodyTick, executor),
        errors);
  }

  /**
   * Returns the handler that serves this transport's non-blocking calls on Jetty's selector
   * ({@link SelectorLane}) in front of {@code servlets}, the context this transport's servlet is
   * mounted in; or {@code servlets} itself when something configured here may block there (an
   * operator's authenticator or fingerprint resolver, a rate limiter, a shared cluster).
   */
  public org.eclipse.jetty.server.Handler lane(org.eclipse.jetty.server.Handler servlets) {
    Authenticator authenticator = options.authenticator();
    boolean builtIn = authenticator instanceof LocalAuthenticator
        || authenticator instanceof BearerTokenAuthenticator;
    if (!builtIn || options.fingerprintResolver() != null || options.rateLimiter() != null
        || engine.cluster().shared()) {
      return servlets;
    }
    return new SelectorLane(this, engine, options, authenticator instanceof BearerTokenAuthenticator b
        ? b : null, servlets);
  }

  /** Serves one HTTP request. */
  public void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (req.getAttribute(SelectorLane.PREPARED) instanceof SelectorLane.Prepared prepared) {
      // every gate passed in the lane, and the call is resolved: it is not resolved again
      req.removeAttribute(SelectorLane.PREPARED);
      prepared(req, resp, prepared);
      return;
    }
    if (!"POST".equals(req.getMethod())) {
      // only a POST's body is ever read: any other request that brings one ends its connection
      BodyRead.closeIfBodyUnread(req, resp);
    }
    if (!gates.passCommon(req, resp)) {
      return;
    }
    switch (req.getMethod()) {
      case "POST" -> post(req, resp);
      case "GET" -> get(req, resp);
      default -> delete(req, resp);
    }
  }

  /**
   * A POST: content type and declared length, then authentication, all before any byte of the
   * body is read; then the body, read without waiting on the client ({@link BodyRead}).
   */
  private void post(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!gates.passPostHead(req, resp)) {
      return;
    }
    Optional<Principal> principal = authentication.authenticate(req, resp);
    if (principal.isEmpty()) {
      return;
    }
    byte[] whole = BodyRead.arrivedWhole(req);
    if (whole != null) {
      posted(req, resp, null, principal.get(), whole);
      return;
    }
    new BodyRead(req, resp, bodies, (read, body) -> posted(req, resp, read, principal.get(),
        body)).start();
  }

  /**
   * A POST whose body has arrived, on the thread that read its last bytes; {@code read} is the
   * read that waited for it, or null when it came whole with its head.
   */
  private void posted(HttpServletRequest req, HttpServletResponse resp, BodyRead read,
      Principal principal, byte[] body) throws IOException {
    JsonRpcMessage message;
    try {
      message = engine.codec().decode(body);
    } catch (InvalidMessageException e) {
      errors.write(resp, 400, e.requestId(), e.code(), e.getMessage(), null);
      return;
    }
    // The one place an HTTP message's era is decided; everything below follows it.
    Era era = Era.of(new Era.Facts(methodOf(message), paramsOf(message),
        req.getHeader("MCP-Protocol-Version"), req.getHeader("Mcp-Session-Id"),
        req.getHeader("Mcp-Method"), req.getHeader("Mcp-Name")));
    if (era == Era.MODERN && message instanceof JsonRpcRequest r) {
      postModern(req, resp, read, principal, r);
      return;
    }
    if (era == Era.MODERN) {
      // The stateless era defines no notification over HTTP (closing a stream is the cancel):
      // accepted and ignored, as clients that send one anyway expect.
      resp.setStatus(202);
      return;
    }
    boolean initialize = message instanceof JsonRpcRequest r && r.method().equals("initialize");
    if (!initialize && !gates.passVersion(req, resp)) {
      return;
    }
    String sid = req.getHeader("Mcp-Session-Id");
    if (sid != null && !Gates.validSessionId(sid)) {
      errors.write(resp, 400, ErrorCodes.INVALID_REQUEST, "Bad Request: invalid Mcp-Session-Id");
      return;
    }
    if (initialize) {
      ServerSession existing = null;
      if (sid != null && options.sessions()) {
        existing = engine.session(sid, principal).orElse(null);
        if (existing == null) {
          existing = elsewhere(req, resp, read, sid, principal, body);
          if (existing == null) {
            return;
          }
        }
      }
      initialize(resp, (JsonRpcRequest) message, principal, existing);
      return;
    }
    ServerSession session = null;
    if (options.sessions()) {
      if (sid == null) {
        errors.write(resp, 400, ErrorCodes.INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required");
        return;
      }
      session = engine.session(sid, principal).orElse(null);
      if (session == null) {
        session = elsewhere(req, resp, read, sid, principal, body);
        if (session == null) {
          return;
        }
      }
    }
    if (!(message instanceof JsonRpcRequest request)) {
      engine.deliver(Edge.of(session, principal, Era.LEGACY), message);
      resp.setStatus(202);
      return;
    }
    if (gates.passAccept(req, resp)) {
      dispatch(req, resp, read, session, engine.call(Edge.of(session, principal, Era.LEGACY),
          request), false);
    }
  }

  private static String methodOf(JsonRpcMessage message) {
    if (message instanceof JsonRpcRequest r) {
      return r.method();
    }
    return message instanceof JsonRpcNotification n ? n.method() : null;
  }

  private static tools.jackson.databind.JsonNode paramsOf(JsonRpcMessage message) {
    if (message instanceof JsonRpcRequest r) {
      return r.params();
    }
    return message instanceof JsonRpcNotification n ? n.params() : null;
  }

  /**
   * A stateless request (already authenticated): the header checks, then the engine without any
   * session. A {@code Mcp-Session-Id} it carries is ignored, and none is ever minted.
   */
  private void postModern(HttpServletRequest req, HttpServletResponse resp, BodyRead read,
      Principal principal, JsonRpcRequest request) throws IOException {
    // resolved first: the header checks need the tool's schema, and the call knows its tool
    ServerCall call = engine.call(Edge.of(null, principal, Era.MODERN), request);
    Optional<ModernGate.Refusal> refusal = ModernGate.check(req::getHeader, request,
        call.toolInputSchema().orElse(null));
    if (refusal.isPresent()) {
      ModernGate.Refusal r = refusal.get();
      errors.write(resp, r.status(), request.id(), r.code(), r.message(), r.data());
      return;
    }
    if (gates.passAccept(req, resp)) {
      dispatch(req, resp, read, null, call, true);
    }
  }

  /**
   * A call {@link SelectorLane} resolved: started here when it must leave the selector, or, when
   * it ran there and sent something before its answer, written as any such exchange is.
   */
  private void prepared(HttpServletRequest req, HttpServletResponse resp,
      SelectorLane.Prepared prepared) throws IOException {
    if (prepared.call() != null) {
      dispatch(req, resp, null, prepared.session(), prepared.call(), prepared.modern());
      return;
    }
    PostExchange exchange = exchange(req, null, prepared.session(), prepared.modern());
    java.util.List<JsonRpcMessage> sent = prepared.sent();
    for (int i = 0; i <= sent.size(); i++) {
      if (i == prepared.polledAt()) {
        exchange.closeForPolling();
      }
      if (i < sent.size()) {
        exchange.send(sent.get(i));
      }
    }
    exchange.finish(prepared.answer());
  }

  /** The ordinary exchange of a POST's call, in servlet async mode. */
  private PostExchange exchange(HttpServletRequest req, BodyRead read, ServerSession session,
      boolean modern) {
    boolean resumable = session != null && options.events() != null
        && ProtocolVersion.atLeast(session.protocolVersion(), ProtocolVersion.V2025_11_25);
    SessionStreams streams = session == null ? null : streamsFor(session);
    AsyncContext async = BodyRead.asyncContext(read, req);
    PostExchange exchange = new PostExchange(context, async, streams,
        Gates.accepts(req, "text/event-stream"), resumable, modern);
    BodyRead.listen(read, async, exchange);
    return exchange;
  }

  /**
   * Starts a resolved call: the engine admits it and hands it to a handler thread, or runs it
   * here when it is a non-blocking tool and this transport can spare the container thread.
   */
  private void dispatch(HttpServletRequest req, HttpServletResponse resp, BodyRead read,
      ServerSession session, ServerCall call, boolean modern) throws IOException {
    java.util.Set<String> missing = call.missingScopes();
    if (!missing.isEmpty()) {
      authentication.refuseScopes(req, resp, missing);
      return;
    }
    boolean sseAccepted = Gates.accepts(req, "text/event-stream");
    Supplier<PostExchange> exchangeOf = () -> {
      PostExchange exchange = exchange(req, read, session, modern);
      exchange.cancelWith(call::cancel);
      return exchange;
    };
    if (call.runsInline() && inlineSlots.tryAcquire()) {
      // A tool registered as non-blocking (or an answer that needs no handler): no hand-off
      // (SPEC 2 departure, opt-in per tool; see ToolOptions.withNonBlocking). Unless it
      // streams, not even async mode: the answer is written before service() returns.
      try {
        InlineExchange exchange = new InlineExchange(resp, engine.codec(), sseAccepted, modern,
            exchangeOf);
        exchange.cancelWith(call::cancel);
        if (!call.start(exchange, true)) {
          busy(resp, call.request());
        }
      } finally {
        inlineSlots.release();
      }
      return;
    }
    PostExchange exchange = exchangeOf.get();
    if (!call.start(exchange, false)) {
      // Over the in-flight limit: refused before any handler thread is started.
      exchange.refuse(503, engine.codec().encode(busyAnswer(call.request())), "1");
    }
  }

  private void busy(HttpServletResponse resp, JsonRpcRequest request) throws IOException {
    resp.setHeader("Retry-After", "1");
    errors.write(resp, 503, request.id(), ErrorCodes.SERVER_ERROR, "Server busy", null);
  }

  private static JsonRpcErrorResponse busyAnswer(JsonRpcRequest request) {
    return new JsonRpcErrorResponse(request.id(),
        new dev.keel.mcp.core.jsonrpc.JsonRpcError(ErrorCodes.SERVER_ERROR, "Server busy", null));
  }

  private void initialize(HttpServletResponse resp, JsonRpcRequest request, Principal principal,
      ServerSession existing) throws IOException {
    InitializeOutcome outcome;
    try {
      outcome = engine.initialize(principal, request, existing);
    } catch (ClusterUnavailableException e) {
      unavailable(resp, request.id());
      return;
    }
    if (outcome.session() == null) {
      if (outcome.response() instanceof JsonRpcErrorResponse e
          && e.error().code() == ErrorCodes.SERVER_ERROR) {
        resp.setHeader("Retry-After", "5");
        errors.write(resp, 503, request.id(), e.error().code(), e.error().message(), null);
        return;
      }
      writeJson(resp, outcome.response());
      return;
    }
    if (!options.sessions()) {
      outcome.session().close();
    } else {
      streamsFor(outcome.session());
      resp.setHeader("Mcp-Session-Id", outcome.session().id());
    }
    writeJson(resp, outcome.response());
  }

  private void get(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!Gates.accepts(req, "text/event-stream")) {
      errors.write(resp, 406, ErrorCodes.INVALID_REQUEST,
          "Not Acceptable: a GET stream needs Accept: text/event-stream");
      return;
    }
    ServerSession session = sessionForStreamOrDelete(req, resp, true);
    if (session == null) {
      return;
    }
    if (openListening.get() >= options.maxListeningStreams()) {
      resp.setHeader("Retry-After", "5");
      errors.write(resp, 503, ErrorCodes.SERVER_ERROR, "Server busy: too many streams");
      return;
    }
    new ResumeOrListen(context, streamsFor(session), session,
        ProtocolVersion.atLeast(session.protocolVersion(), ProtocolVersion.V2025_11_25))
        .serve(req, req.getHeader("Last-Event-ID"));
  }

  private void delete(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    ServerSession session = sessionForStreamOrDelete(req, resp, false);
    if (session == null) {
      return;
    }
    session.close();
    resp.setStatus(204);
  }

  private ServerSession sessionForStreamOrDelete(HttpServletRequest req,
      HttpServletResponse resp, boolean mayOpenChannel) throws IOException {
    if (!gates.passVersion(req, resp)) {
      return null;
    }
    Optional<Principal> principal = authentication.authenticate(req, resp);
    if (principal.isEmpty()) {
      return null;
    }
    if (!options.sessions()) {
      resp.setHeader("Allow", "POST");
      errors.write(resp, 405, ErrorCodes.INVALID_REQUEST,
          "Method Not Allowed: this server keeps no sessions");
      return null;
    }
    String sid = req.getHeader("Mcp-Session-Id");
    if (sid == null) {
      // Without a legacy session there is no stream to open or session to end; the stateless
      // era has neither (spec 2026-07-28, backward compatibility).
      resp.setHeader("Allow", "POST");
      errors.write(resp, 405, ErrorCodes.INVALID_REQUEST,
          "Method Not Allowed: " + req.getMethod() + " needs a legacy session");
      return null;
    }
    if (!Gates.validSessionId(sid)) {
      errors.write(resp, 400, ErrorCodes.INVALID_REQUEST, "Bad Request: invalid Mcp-Session-Id");
      return null;
    }
    if (mayOpenChannel) {
      Optional<ServerSession> owned = engine.session(sid, principal.get());
      if (owned.isEmpty() && !listedInCluster(sid)) {
        // a channel is claimed only under an id no node lists: a session another node holds
        // is never shadowed by a channel here
        owned = engine.attachChannel(sid, principal.get());
      }
      if (owned.isPresent()) {
        return owned.get();
      }
    }
    Optional<ServerSession> owned = engine.session(sid, principal.get());
    if (owned.isPresent()) {
      return owned.get();
    }
    return elsewhere(req, resp, null, sid, principal.get(), null);
  }

  /**
   * A session this node does not hold. Alone, or for a request another node forwarded, it is
   * unknown: 404, the same for an unknown id and for another principal's (no existence oracle).
   * In a cluster, the directory says who holds it: the request is forwarded there; a session
   * whose node died is taken over and served here.
   *
   * @param body the request's body, or null for GET and DELETE
   * @return the session when it is served here now; null when the request was answered
   */
  private ServerSession elsewhere(HttpServletRequest req, HttpServletResponse resp,
      BodyRead read, String sid, Principal principal, byte[] body) throws IOException {
    Cluster cluster = engine.cluster();
    if (!cluster.shared() || Forwarder.forwarded(req)) {
      notFound(resp);
      return null;
    }
    try {
      Optional<SessionRecord> found = routes.find(cluster, sid);
      if (found.isEmpty() || !found.get().owner().equals(principal.fingerprint())
          || found.get().node().equals(cluster.nodeId())) {
        // listed under this node yet not held: it ended here and its listing has not gone yet
        notFound(resp);
        return null;
      }
      SessionRecord record = found.get();
      Optional<URI> holder = cluster.addressOf(record.node());
      if (holder.isPresent()) {
        forwarder.forward(req, resp, BodyRead.asyncContext(read, req), holder.get(), body,
            () -> takeOverThenForwardHere(req, resp, record, principal, body));
        return null;
      }
      ServerSession taken = takeOver(record, principal);
      if (taken == null) {
        notFound(resp);
      }
      return taken;
    } catch (ClusterUnavailableException e) {
      unavailable(resp, null);
      return null;
    }
  }

  /**
   * The node that held a session stopped announcing itself (or refused the connection): the
   * directory moves the session here, atomically, and this node serves it from now on.
   *
   * @return the session, or null when another node took it first or the owner differs
   */
  private ServerSession takeOver(SessionRecord record, Principal principal) {
    Cluster cluster = engine.cluster();
    routes.forget(record.id());
    if (!cluster.sessions().move(record.id(), record.node(), cluster.nodeId())) {
      Optional<SessionRecord> now = cluster.sessions().find(record.id());
      if (now.isEmpty() || !now.get().node().equals(cluster.nodeId())) {
        return null;
      }
    }
    LOG.info("took over session {} from node {}", record.id(), record.node());
    return engine.adopt(record.movedTo(cluster.nodeId()), principal).orElse(null);
  }

  /** Returns true when the cluster's directory lists {@code sid} (or cannot be asked). */
  private boolean listedInCluster(String sid) {
    Cluster cluster = engine.cluster();
    if (!cluster.shared()) {
      return false;
    }
    try {
      return cluster.sessions().find(sid).isPresent();
    } catch (ClusterUnavailableException e) {
      return true;
    }
  }

  /**
   * The holder could not be reached while the request was already on its way there: the
   * session is taken over, and the request is forwarded to this node itself, which now holds it.
   */
  private void takeOverThenForwardHere(HttpServletRequest req, HttpServletResponse resp,
      SessionRecord record, Principal principal, byte[] body) throws IOException {
    Cluster cluster = engine.cluster();
    ServerSession taken;
    try {
      taken = takeOver(record, principal);
    } catch (ClusterUnavailableException e) {
      unavailable(resp, null);
      return;
    }
    Optional<URI> self = cluster.addressOf(cluster.nodeId());
    if (taken == null || self.isEmpty()) {
      notFound(resp);
      return;
    }
    forwarder.relayTo(req, resp, self.get(), body);
  }

  private void notFound(HttpServletResponse resp) throws IOException {
    errors.write(resp, 404, ErrorCodes.INVALID_REQUEST, "Session not found");
  }

  /** The shared store is out of reach: 503, retry shortly; never a local fallback. */
  private void unavailable(HttpServletResponse resp, dev.keel.mcp.core.jsonrpc.RequestId id)
      throws IOException {
    resp.setHeader("Retry-After", "1");
    errors.write(resp, 503, id, ErrorCodes.SERVER_ERROR,
        "Service unavailable: the cluster's shared store cannot be reached", null);
  }

  /**
   * Ends {@code session} only when that cannot block: no stream of it is open here, its events
   * (if any) are in memory, and the engine finds it quiet ({@link ServerEngine#endIfQuiet}).
   *
   * @return true when it was ended; false when it was left for the servlet's DELETE
   */
  boolean endIfQuiet(ServerSession session) {
    if (options.events() != null && !(options.events() instanceof InMemoryEventStore)) {
      // an operator's store may be remote: forgetting the session's events could block
      return false;
    }
    SessionStreams streams = sessionStreams.get(session.id());
    return (streams == null || streams.quiet()) && engine.endIfQuiet(session);
  }

  /** Keeps the stream state of a session created outside {@link #service} (the lane's). */
  void track(ServerSession session) {
    streamsFor(session);
  }

  private SessionStreams streamsFor(ServerSession session) {
    SessionStreams existing = sessionStreams.get(session.id());
    if (existing != null) {
      return existing;
    }
    SessionStreams created = new SessionStreams(session.id());
    SessionStreams prior = sessionStreams.putIfAbsent(session.id(), created);
    if (prior != null) {
      return prior;
    }
    session.onClose(() -> {
      sessionStreams.remove(session.id(), created);
      created.closeAll(false);
      if (options.events() != null) {
        options.events().forget(session.id());
      }
    });
    return created;
  }

  private void writeJson(HttpServletResponse resp, JsonRpcMessage message) throws IOException {
    byte[] body = engine.codec().encode(message);
    resp.setStatus(200);
    resp.setContentType("application/json");
    resp.setContentLength(body.length);
    resp.getOutputStream().write(body);
  }

  /** Answers 503 for a request that needed the cluster's store, if the response is still open. */
  public void unavailable(HttpServletResponse resp) {
    if (!resp.isCommitted()) {
      try {
        resp.reset();
        unavailable(resp, null);
      } catch (IOException | IllegalStateException ignored) {
        // the connection is gone
      }
    }
  }

  /** Writes the error for a failure nothing else caught, if the response is still open. */
  public void internalError(HttpServletResponse resp, RuntimeException e) {
    LOG.error("unexpected failure serving an MCP request", e);
    if (!resp.isCommitted()) {
      try {
        resp.reset();
        errors.write(resp, 500, ErrorCodes.INTERNAL_ERROR, "Internal error");
      } catch (IOException | IllegalStateException ignored) {
        // the connection is gone
      }
    }
  }

  /** Returns how many streams are open (listening and request streams), for metrics and tests. */
  public int openStreams() {
    return context.keepAlive().size() + context.probes().size();
  }

  /** Returns how many listening streams are open. */
  public int openListeningStreams() {
    return openListening.get();
  }

  /** Returns how many bytes of the body budget the bodies still arriving hold. */
  public long bufferedBodyBytes() {
    return bodies.budget().reserved();
  }

  /** Returns how many sessions have transport state (streams or stored events). */
  public int trackedSessions() {
    return sessionStreams.size();
  }

  @Override
  public void close() {
    context.keepAlive().close();
    context.probes().close();
    bodies.timer().close();
    forwarder.close();
    for (SessionStreams streams : sessionStreams.values()) {
      streams.closeAll(true);
    }
    executor.shutdownNow();
  }
}
