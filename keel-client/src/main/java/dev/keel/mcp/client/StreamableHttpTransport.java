package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.ClientThreads;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.HeaderMirror;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MCP Streamable HTTP on the JDK {@link HttpClient}, both eras.
 *
 * <p>Each message is a POST; a request's answer comes as JSON or as an SSE stream, read on a
 * client thread. A legacy session's id is captured from the {@code initialize} answer and sent on
 * every later request; a stream that breaks after carrying event ids is resumed with GET and
 * {@code Last-Event-ID} after the server's {@code retry} (never sooner than a floor; a request
 * whose server asks for more than 60 s fails, the listening stream waits 60 s). Redirects are
 * never followed, so no credential reaches another origin. Bodies, SSE events and gzip are
 * bounded. Closing sends DELETE for a legacy session.
 *
 * <pre>{@code
 * ClientTransport http = StreamableHttpTransport.builder(URI.create("http://127.0.0.1:8765/mcp"))
 *     .bearer(System.getenv("MCP_TOKEN"))
 *     .build();
 * }</pre>
 */
public final class StreamableHttpTransport implements ClientTransport {

  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);

  private final URI endpoint;
  private final Map<String, String> headers;
  private final BearerAuthority oauth;
  private final HttpClient http;
  private final HttpExchange.Limits limits;
  private final JsonRpcCodec codec;
  private final ExecutorService readers = ClientThreads.newExecutor("keel-http-client");
  /** Cuts a request's stream that stays open after its answer (see HttpExchange.readToEnd). */
  private final ScheduledThreadPoolExecutor streamEnds = ClientThreads.newTimer(
      "keel-http-client-stream-ends");
  /** The request exchanges being read: closing the transport ends each one. */
  private final Set<HttpExchange> live = ConcurrentHashMap.newKeySet();
  private final ReentrantLock sessionLock = new ReentrantLock();
  private final Capabilities capabilities;
  private volatile Receiver receiver;
  private volatile String sessionId;
  private volatile String legacyVersion;
  private volatile long epoch;
  private volatile HttpExchange listening;
  private volatile boolean closed;

  private StreamableHttpTransport(Builder b) {
    this.endpoint = b.endpoint;
    this.headers = Map.copyOf(b.headers);
    this.oauth = b.oauth;
    // The JDK client's own steps run on its selector thread rather than on the default
    // executor, a cached thread pool that each step hops to and back from: 64 callers made
    // 2.0x the calls per second this way (docs/performance.md, the client). It is safe here
    // because nothing Keel hands the JDK blocks: bodies are published from byte arrays, read
    // through ofInputStream on Keel's reader threads, and no stage is chained on a future the
    // JDK completes; a reader waits with get() on its own thread.
    this.http = HttpClient.newBuilder().connectTimeout(b.connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER).executor(Runnable::run).build();
    this.limits = new HttpExchange.Limits(b.maxEventBytes, b.maxBodyBytes, b.retryFloor,
        b.retryCeiling, b.maxReconnects);
    this.codec = new JsonRpcCodec(McpJson.standard());
    // Per-request streams (SSE or JSON answers), the version header; the listening stream
    // unless the builder turned it off. Sessions are named by the server (Mcp-Session-Id).
    this.capabilities = new Capabilities(true, b.listeningStream, false, true);
  }

  /** Returns a builder for the endpoint, such as {@code http://127.0.0.1:8765/mcp}. */
  public static Builder builder(URI endpoint) {
    return new Builder(endpoint);
  }

  @Override
  public void start(Receiver target) {
    this.receiver = Objects.requireNonNull(target, "receiver");
  }

  @Override
  public Exchange send(JsonRpcMessage message, SendOptions options) {
    if (closed) {
      throw new TransportException("the transport is closed");
    }
    String session;
    long sentEpoch;
    // The session a write goes to is picked here, and the pin checked in the same section: a
    // payload of an ended session never leaves with the id of the session that replaced it.
    sessionLock.lock();
    try {
      checkWrite(epoch);
      session = options.modern() ? null : sessionId;
      sentEpoch = epoch;
    } finally {
      sessionLock.unlock();
    }
    HttpRequest request = post(message, options, session);
    if (!(message instanceof JsonRpcRequest call)) {
      postOneWay(request);
      return Exchange.NONE;
    }
    HttpExchange exchange = new HttpExchange(this, http, codec, limits, receiver, call, session,
        sentEpoch);
    live.add(exchange);
    try {
      readers.execute(() -> {
        try {
          exchange.run(request);
        } finally {
          live.remove(exchange);
        }
      });
    } catch (RejectedExecutionException e) {
      live.remove(exchange);
      throw new TransportException("the transport is closed", 0, e);
    }
    return exchange;
  }

  private void postOneWay(HttpRequest request) {
    try {
      HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
      HttpRequest again = reauthorized(request, response);
      if (again != null) {
        response = http.send(again, HttpResponse.BodyHandlers.discarding());
      }
      if (response.statusCode() >= 300) {
        LOG.debug("the server refused a notification or response: HTTP {}",
            response.statusCode());
      }
    } catch (java.io.IOException e) {
      throw new TransportException("cannot reach " + endpoint + ": "
          + Text.safe(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()),
          0, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransportException("interrupted while sending", 0, e);
    }
  }

  private HttpRequest post(JsonRpcMessage message, SendOptions options, String session) {
    HttpRequest.Builder b = base().header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(codec.encode(message)));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    // Exactly what the client says, and nothing when it says nothing: the legacy initialize
    // carries no version, whatever an earlier probe or session used.
    String version = options.protocolVersion();
    if (version != null) {
      b.header("MCP-Protocol-Version", version);
    }
    if (options.modern() && message instanceof JsonRpcRequest r) {
      modernHeaders(b, r, options.toolInputSchema());
    }
    return b.build();
  }

  /** {@code Mcp-Method}, {@code Mcp-Name} and {@code Mcp-Param-*}: the body, mirrored. */
  private static void modernHeaders(HttpRequest.Builder b, JsonRpcRequest r, ObjectNode schema) {
    HeaderMirror.headers(r, schema).forEach(b::header);
  }


  HttpRequest.Builder base() {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint);
    headers.forEach(b::header);
    String authorization = oauth == null ? null : oauth.authorization(endpoint);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  /**
   * Returns {@code request} with a fresh access token after the server refused it with
   * {@code response}'s challenge, or null when there is nothing to retry with (no OAuth, not a
   * Bearer challenge, or no token to be had).
   */
  HttpRequest reauthorized(HttpRequest request, HttpResponse<?> response) {
    int status = response.statusCode();
    if (oauth == null || (status != 401 && status != 403)) {
      return null;
    }
    String challenge = response.headers().firstValue("WWW-Authenticate").orElse(null);
    // A 401 without a Bearer challenge may still come from a 2025-03-26 server; a 403 is
    // worth another token only when it says the scope was too small.
    if (challenge != null && !challenge.regionMatches(true, 0, "Bearer", 0, 6)) {
      return null;
    }
    if (status == 403 && (challenge == null || !challenge.contains("insufficient_scope"))) {
      return null;
    }
    String rejected = request.headers().firstValue("Authorization").orElse(null);
    String fresh = oauth.challenged(endpoint, status, challenge, rejected);
    if (fresh == null || fresh.equals(rejected)) {
      return null;
    }
    return HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(
        "Authorization")).header("Authorization", fresh).build();
  }

  HttpRequest listenRequest(String session, String lastEventId) {
    HttpRequest.Builder b = base().header("Accept", "text/event-stream").GET();
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    if (legacyVersion != null) {
      b.header("MCP-Protocol-Version", legacyVersion);
    }
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    return b.build();
  }

  /**
   * Called by an exchange whose {@code initialize} answer named a session: adopting a
   * different session id moves the epoch.
   */
  void adoptSession(String id) {
    sessionLock.lock();
    try {
      if (sessionId != null && !sessionId.equals(id)) {
        epoch++;
      }
      sessionId = id;
    } finally {
      sessionLock.unlock();
    }
  }

  /**
   * Called when the server answered 404 to a request that named {@code expired}: that session
   * is over, so the epoch moves now, before anyone starts a new one.
   */
  void sessionExpired(String expired) {
    sessionLock.lock();
    try {
      if (expired != null && expired.equals(sessionId)) {
        sessionId = null;
        epoch++;
        stopListening();
      }
    } finally {
      sessionLock.unlock();
    }
  }

  @Override
  public Capabilities capabilities() {
    return capabilities;
  }

  /**
   * Keeps the negotiated legacy version for the requests the transport makes itself: the
   * listening stream's GET, a resumption, the DELETE.
   */
  @Override
  public void sessionStarted(String protocolVersion) {
    this.legacyVersion = protocolVersion;
  }

  /**
   * Opens the legacy listening stream (GET) for server messages unrelated to any request. A
   * server without one (405) is fine; the stream reconnects with {@code Last-Event-ID} when the
   * server closes it.
   */
  @Override
  public void openListeningStream() {
    String session = sessionId;
    if (!capabilities.listeningStream() || session == null || closed) {
      return;
    }
    HttpExchange stream = HttpExchange.listening(this, http, codec, limits, receiver, session);
    listening = stream;
    readers.execute(() -> stream.runListening());
  }

  private void stopListening() {
    HttpExchange stream = listening;
    listening = null;
    if (stream != null) {
      stream.abort();
    }
  }

  @Override
  public long sessionEpoch() {
    return epoch;
  }

  @Override
  public String sessionId() {
    return sessionId;
  }

  /** Returns the endpoint. */
  public URI endpoint() {
    return endpoint;
  }

  /** Returns true once closed. */
  boolean isClosed() {
    return closed;
  }

  /** Returns the timer that cuts response streams left open after their answer. */
  ScheduledExecutorService streamEnds() {
    return streamEnds;
  }

  /** Returns how many request exchanges are still being read: 0 once every one has ended. */
  int liveExchanges() {
    return live.size();
  }

  /** Waits until every reader thread has ended (after close); true when they have. */
  boolean awaitReaders(Duration within) throws InterruptedException {
    return readers.awaitTermination(within.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopListening();
    String session;
    sessionLock.lock();
    try {
      session = sessionId;
      sessionId = null;
      if (session != null) {
        epoch++;
      }
    } finally {
      sessionLock.unlock();
    }
    if (session != null) {
      delete(session);
    }
    // The interrupt of shutdownNow does not end a read blocked in the JDK's response body (a
    // stream that went quiet would stay open, its reader with it); abort() closes the stream.
    // An aborted exchange reports nothing, so its caller hears that the client closed.
    for (HttpExchange exchange : live) {
      exchange.abort();
    }
    readers.shutdownNow();
    streamEnds.shutdownNow();
    shutDownHttpClient();
  }

  /**
   * Ends the {@link HttpClient}'s own threads (its selector and workers). {@code shutdownNow}
   * exists from JDK 21; on JDK 17 they end when the client is collected.
   */
  private void shutDownHttpClient() {
    try {
      HttpClient.class.getMethod("shutdownNow").invoke(http);
    } catch (NoSuchMethodException e) {
      // JDK 17: nothing to call
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("could not shut the HTTP client down: {}", Text.safe(String.valueOf(e)));
    }
  }

  /**
   * Ends the session at the server. The client is often closed by the thread whose call was
   * just interrupted (Ctrl-C on {@code keel call}): an interrupt still pending would fail the
   * DELETE before it left, so it is set aside for the DELETE and restored afterwards.
   */
  private void delete(String session) {
    boolean interrupted = Thread.interrupted();
    try {
      HttpRequest.Builder b = base().header("Mcp-Session-Id", session).DELETE();
      if (legacyVersion != null) {
        b.header("MCP-Protocol-Version", legacyVersion);
      }
      http.send(b.timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (java.io.IOException e) {
      LOG.debug("DELETE of the session failed: {}", Text.safe(e.getMessage()));
    } catch (InterruptedException e) {
      // interrupted again while the DELETE was on its way: give up on it
      interrupted = true;
      LOG.debug("DELETE of the session interrupted");
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Builds a {@link StreamableHttpTransport}. */
  public static final class Builder {
    private final URI endpoint;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private BearerAuthority oauth;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private int maxEventBytes = 4 * 1024 * 1024;
    private long maxBodyBytes = 16L * 1024 * 1024;
    private Duration retryFloor = Duration.ofMillis(100);
    private Duration retryCeiling = Duration.ofSeconds(60);
    private int maxReconnects = 5;
    private boolean listeningStream = true;

    private Builder(URI endpoint) {
      Objects.requireNonNull(endpoint, "endpoint");
      String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme()
          .toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new IllegalArgumentException("endpoint must be http or https: " + endpoint);
      }
      this.endpoint = endpoint;
    }

    /** Adds a header sent with every request (for example an API key). */
    public Builder header(String name, String value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith("mcp-") || lower.equals("last-event-id")) {
        throw new IllegalArgumentException(name + " is the transport's own header");
      }
      headers.put(name, value);
      return this;
    }

    /**
     * Answers the server's OAuth challenges with client credentials: a token is requested when
     * the server asks for one, and the request sent again once with it.
     */
    public Builder oauth(OAuthClientCredentials value) {
      this.oauth = Objects.requireNonNull(value, "oauth").authority();
      return this;
    }

    /**
     * Answers the server's OAuth challenges with the authorization-code flow for a person: see
     * {@link OAuthAuthorizationCode}. The request that met the challenge waits for the flow and
     * is sent again with the token.
     */
    public Builder oauth(OAuthAuthorizationCode value) {
      this.oauth = Objects.requireNonNull(value, "oauth").authority();
      return this;
    }

    /** Sends {@code Authorization: Bearer token} with every request. */
    public Builder bearer(String token) {
      return header("Authorization", "Bearer " + Objects.requireNonNull(token, "token"));
    }

    /** Sets the connection timeout (default 10 s). */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = Objects.requireNonNull(value, "connectTimeout");
      return this;
    }

    /** Sets the largest SSE event accepted (default 4 MiB). */
    public Builder maxEventBytes(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxEventBytes must be positive: " + value);
      }
      this.maxEventBytes = value;
      return this;
    }

    /** Sets the largest JSON body accepted, after decompression (default 16 MiB). */
    public Builder maxBodyBytes(long value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be positive: " + value);
      }
      this.maxBodyBytes = value;
      return this;
    }

    /** Sets the shortest wait before resuming a stream, whatever {@code retry} says. */
    public Builder retryFloor(Duration value) {
      this.retryFloor = Objects.requireNonNull(value, "retryFloor");
      return this;
    }

    /** Sets the longest wait a server's {@code retry} gets (60 s); for tests in this package. */
    Builder retryCeiling(Duration value) {
      this.retryCeiling = Objects.requireNonNull(value, "retryCeiling");
      return this;
    }

    /** Sets how many times a broken stream is resumed before the request fails (default 5). */
    public Builder maxReconnects(int value) {
      this.maxReconnects = value;
      return this;
    }

    /** Turns the legacy GET listening stream off (default on). */
    public Builder listeningStream(boolean value) {
      this.listeningStream = value;
      return this;
    }

    /** Returns the transport. */
    public StreamableHttpTransport build() {
      return new StreamableHttpTransport(this);
    }
  }
}
