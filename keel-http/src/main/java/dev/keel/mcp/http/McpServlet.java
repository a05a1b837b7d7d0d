package dev.keel.mcp.http;

import dev.keel.mcp.http.internal.HttpTransport;
import dev.keel.mcp.http.internal.OriginPolicy;
import dev.keel.mcp.http.spi.EventStore;
import dev.keel.mcp.server.McpServer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The MCP Streamable HTTP transport as a Jakarta Servlet 6, mountable in any servlet container
 * (Jetty, Tomcat, Undertow, Spring). It must be registered with async support; map it to the
 * endpoint path (or to {@code /*}: it answers 404 for every other path itself).
 *
 * <pre>{@code
 * McpServlet servlet = McpServlet.builder(server)
 *     .path("/mcp")
 *     .allowedOrigins(List.of("https://app.example.com"))
 *     .authenticator(myAuthenticator)
 *     .build();
 * ServletHolder holder = new ServletHolder(servlet);
 * holder.setAsyncSupported(true);
 * context.addServlet(holder, "/*");
 * }</pre>
 *
 * <p>No container thread waits on a handler or on a client: requests leave the container thread
 * through servlet async and run on virtual threads where the JVM has them, a body that has not
 * all arrived is read in async mode as it comes ({@link Builder#bodyTimeout}), and an idle SSE
 * stream holds no thread at all. A POST is authenticated before any byte of its body is read.
 */
public final class McpServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;

  private final transient HttpTransport transport;

  private McpServlet(HttpTransport transport) {
    this.transport = transport;
  }

  /** Returns a builder for a servlet serving {@code server}. */
  public static Builder builder(McpServer server) {
    return new Builder(server);
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    try {
      transport.service(req, resp);
    } catch (dev.keel.mcp.server.cluster.ClusterUnavailableException e) {
      transport.unavailable(resp);
    } catch (RuntimeException e) {
      transport.internalError(resp, e);
    }
  }

  /** Returns how many SSE and pending request streams are open. */
  public int openStreams() {
    return transport.openStreams();
  }

  /** Returns how many GET listening streams are open. */
  public int openListeningStreams() {
    return transport.openListeningStreams();
  }

  /**
   * Returns how many bytes of the total-buffer budget ({@link Builder#maxBufferedBodyBytes})
   * the POST bodies still arriving hold now.
   */
  public long bufferedBodyBytes() {
    return transport.bufferedBodyBytes();
  }

  /**
   * The embedded launcher's handler in front of the context this servlet is mounted in: the
   * selector lane when this servlet's configuration allows it, else the context itself.
   */
  org.eclipse.jetty.server.Handler lane(org.eclipse.jetty.server.Handler context) {
    return transport.lane(context);
  }

  /** Returns how many sessions the transport holds stream state for. */
  public int trackedSessions() {
    return transport.trackedSessions();
  }

  @Override
  public void destroy() {
    transport.close();
  }

  /** Builds a {@link McpServlet}. */
  public static final class Builder {
    private final McpServer server;
    private String path = "/mcp";
    private String healthPath;
    private final Set<String> allowedOrigins = new LinkedHashSet<>();
    private final Set<String> allowedHosts = new LinkedHashSet<>();
    private boolean loopbackOnly = true;
    private Authenticator authenticator = Authenticator.local();
    private final Map<String, byte[]> documents = new LinkedHashMap<>();
    private FingerprintResolver fingerprintResolver;
    private int maxListeningStreams = 10_000;
    private RateLimiter rateLimiter;
    private Integer maxBodyBytes;
    private boolean sessions = true;
    private Duration keepAlive = Duration.ofSeconds(15);
    private Duration retry = Duration.ofSeconds(1);
    private EventStore events = EventStore.inMemory(1000, 4L * 1024 * 1024);
    private Duration bodyTimeout = Duration.ofSeconds(30);
    private long maxBufferedBodyBytes = 64L * 1024 * 1024;

    private Builder(McpServer server) {
      this.server = Objects.requireNonNull(server, "server");
    }

    /** Sets the endpoint path (default {@code /mcp}). */
    public Builder path(String value) {
      if (value == null || !value.startsWith("/")) {
        throw new IllegalArgumentException("path must start with '/': " + value);
      }
      this.path = value;
      return this;
    }

    /** Serves {@code GET path} with {@code {"status":"ok"}}, before auth and limits. */
    public Builder healthPath(String value) {
      if (value != null && !value.startsWith("/")) {
        throw new IllegalArgumentException("healthPath must start with '/': " + value);
      }
      this.healthPath = value;
      return this;
    }

    /** Allows browser origins such as {@code https://app.example.com}; others get 403. */
    public Builder allowedOrigins(List<String> origins) {
      allowedOrigins.addAll(origins);
      return this;
    }

    /** Allows {@code Host} values (names, optionally with a port); others get 403. */
    public Builder allowedHosts(List<String> hosts) {
      allowedHosts.addAll(hosts);
      return this;
    }

    /**
     * Declares whether the server is reachable only on loopback (default true). Then, without
     * allowlists, only loopback origins and hosts pass. The embedded launcher sets it from the
     * bind address.
     */
    public Builder loopbackOnly(boolean value) {
      this.loopbackOnly = value;
      return this;
    }

    /** Sets who requests run as (default: everything runs as the local principal). */
    public Builder authenticator(Authenticator value) {
      this.authenticator = Objects.requireNonNull(value, "authenticator");
      return this;
    }

    /**
     * Protects the endpoint with OAuth access tokens: {@code resourceServer} becomes the
     * authenticator, and its protected-resource metadata (RFC 9728) is served, before any
     * authentication, at its well-known paths. A servlet mounted under a prefix in another
     * container receives those paths only when it is mapped at the root too. To accept API keys
     * as well, call {@code authenticator(Authenticator.anyOf(resourceServer, keys))} after this:
     * the metadata stays.
     */
    public Builder oauth(OAuthResourceServer resourceServer) {
      Objects.requireNonNull(resourceServer, "resourceServer");
      this.authenticator = resourceServer;
      byte[] metadata = resourceServer.metadataJson().getBytes(StandardCharsets.UTF_8);
      documents.clear();
      resourceServer.metadataPaths().forEach(p -> documents.put(p, metadata));
      return this;
    }

    /**
     * Sets an operator resolver whose answer wins over the authenticator's fingerprint (the
     * resolved value is hashed: {@code op:<sha-256 prefix>}).
     */
    public Builder fingerprintResolver(FingerprintResolver value) {
      this.fingerprintResolver = value;
      return this;
    }

    /** Sets the most open listening streams (default 10,000); past it, a GET gets 503. */
    public Builder maxListeningStreams(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxListeningStreams must be positive: " + value);
      }
      this.maxListeningStreams = value;
      return this;
    }

    /** Limits requests before authentication; refused ones get 429 (default: none). */
    public Builder rateLimiter(RateLimiter value) {
      this.rateLimiter = value;
      return this;
    }

    /** Sets the largest request body (default: the server's JSON size limit, 4 MiB). */
    public Builder maxBodyBytes(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be positive: " + value);
      }
      this.maxBodyBytes = value;
      return this;
    }

    /**
     * Turns legacy sessions on (default) or off. Off, no {@code Mcp-Session-Id} is issued,
     * every request stands alone, and GET and DELETE get 405.
     */
    public Builder sessions(boolean value) {
      this.sessions = value;
      return this;
    }

    /** Sets how often an open stream gets a keep-alive comment (default 15 s). */
    public Builder keepAlive(Duration value) {
      requirePositive(value, "keepAlive");
      this.keepAlive = value;
      return this;
    }

    /** Sets the reconnection delay sent to clients before a server-side close (default 1 s). */
    public Builder retry(Duration value) {
      requirePositive(value, "retry");
      this.retry = value;
      return this;
    }

    /**
     * Sets how long a POST body may take to arrive once its head has (default 30 s); a body
     * still incomplete then is answered 408 and its connection closed. Bodies are read without
     * holding a thread, so a slow client costs a timer entry and its buffer, never a thread.
     */
    public Builder bodyTimeout(Duration value) {
      requirePositive(value, "bodyTimeout");
      this.bodyTimeout = value;
      return this;
    }

    /**
     * Sets how many bytes all POST bodies still arriving may buffer between them (default 64
     * MiB). A body's buffer grows only with the bytes it received; one that would take the total
     * past this is answered 503 with {@code Retry-After}, so slow clients, even authenticated
     * ones, cannot hold more of the heap. Two things do not count: a body that arrived whole
     * with its head (parsed at once), and the first 8 KiB of each body, so that a small request
     * is never refused because others are slow (each connection holds at most that much outside
     * the cap, and only until the body timeout). Must exceed {@link #maxBodyBytes}.
     */
    public Builder maxBufferedBodyBytes(long value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxBufferedBodyBytes must be positive: " + value);
      }
      this.maxBufferedBodyBytes = value;
      return this;
    }

    /** Sets where SSE events are kept for resumption; null turns resumability off. */
    public Builder eventStore(EventStore value) {
      this.events = value;
      return this;
    }

    /**
     * Returns the servlet.
     *
     * @throws IllegalArgumentException when {@link #maxBufferedBodyBytes} does not exceed the
     *     body limit (no body of the largest size could ever be read)
     */
    public McpServlet build() {
      int bodyLimit = maxBodyBytes != null ? maxBodyBytes
          : server.engine().codec().json().limits().maxBytes();
      if (maxBufferedBodyBytes <= bodyLimit) {
        throw new IllegalArgumentException("maxBufferedBodyBytes (" + maxBufferedBodyBytes
            + ") must exceed the body limit (" + bodyLimit + ")");
      }
      HttpTransport.Options options = new HttpTransport.Options(path, healthPath,
          new OriginPolicy(allowedOrigins, allowedHosts, loopbackOnly), authenticator,
          fingerprintResolver, rateLimiter, bodyLimit, sessions, keepAlive, retry,
          sessions ? events : null, maxListeningStreams, bodyTimeout, maxBufferedBodyBytes,
          Map.copyOf(documents));
      return new McpServlet(new HttpTransport(server.engine(), options));
    }

    /** The origins allowed, for a console that must apply the same rule. */
    Set<String> origins() {
      return Set.copyOf(allowedOrigins);
    }

    /** The hosts allowed, for a console that must apply the same rule. */
    Set<String> hosts() {
      return Set.copyOf(allowedHosts);
    }

    /** Whether the server is reachable only on loopback. */
    boolean loopback() {
      return loopbackOnly;
    }

    private static void requirePositive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
    }
  }
}
