package dev.keel.mcp.http;

import dev.keel.mcp.http.internal.ConnectionBounds;
import dev.keel.mcp.http.internal.ContainerErrors;
import dev.keel.mcp.server.McpServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An embedded Jetty 12 serving one {@link McpServlet}: one call starts it, {@link #close()} stops
 * it.
 *
 * <pre>{@code
 * try (McpHttpServer http = McpHttpServer.builder(server).port(0).start()) {
 *   System.out.println("listening on " + http.endpoint());
 *   http.join();
 * }
 * }</pre>
 *
 * <p>Every connection is bounded, so that clients that are slow on purpose hold no more than
 * their connections, and not for long: a request head must arrive within {@link
 * Builder#headerTimeout} (20 s), a body within {@link Builder#bodyTimeout} (30 s), a client must
 * take a response's bytes within {@link Builder#writeTimeout} (30 s), a connection with nothing
 * to do is closed after {@link Builder#idleTimeout} (5 minutes), and past {@link
 * Builder#maxConnections} (10,000) new connections wait in the operating system's accept queue.
 */
public final class McpHttpServer implements AutoCloseable {

  private final Server jetty;
  private final McpServlet servlet;
  private final String host;
  private final int port;
  private final String path;
  private final String consolePath;
  private final ConnectionBounds bounds;

  private McpHttpServer(Server jetty, McpServlet servlet, String host, int port, String path,
      String consolePath, ConnectionBounds bounds) {
    this.jetty = jetty;
    this.bounds = bounds;
    this.servlet = servlet;
    this.host = host;
    this.port = port;
    this.path = path;
    this.consolePath = consolePath;
  }

  /** Returns a builder for a server of {@code server}. */
  public static Builder builder(McpServer server) {
    return new Builder(server);
  }

  /** The embedded Jetty, for this package's tests of how it is set up. */
  Server jetty() {
    return jetty;
  }

  /** Returns the port it listens on (the real one when 0 was asked). */
  public int port() {
    return port;
  }

  /** Returns the host it is bound to. */
  public String host() {
    return host;
  }

  /** Returns the MCP endpoint, such as {@code http://127.0.0.1:8765/mcp}. */
  public URI endpoint() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return URI.create("http://" + h + ":" + port + path);
  }

  /**
   * Returns the operator console's address, such as {@code http://127.0.0.1:8765/console/},
   * when one was configured ({@link Builder#console}).
   */
  public java.util.Optional<URI> console() {
    if (consolePath == null) {
      return java.util.Optional.empty();
    }
    String h = host.contains(":") ? "[" + host + "]" : host;
    return java.util.Optional.of(URI.create("http://" + h + ":" + port + consolePath));
  }

  private URI reachableEndpoint() {
    try {
      InetAddress bound = InetAddress.getByName(host);
      if (bound.isAnyLocalAddress()) {
        String h = InetAddress.getLocalHost().getHostAddress();
        return URI.create("http://" + (h.contains(":") ? "[" + h + "]" : h) + ":" + port + path);
      }
    } catch (UnknownHostException e) {
      // the endpoint as it is
    }
    return endpoint();
  }

  /** Returns the servlet, for its stream count. */
  public McpServlet servlet() {
    return servlet;
  }

  /**
   * Returns how many client connections are open now (accepted and not yet closed), idle ones
   * included; connections waiting in the accept queue are not counted.
   */
  public int openConnections() {
    return bounds.openConnections();
  }

  /**
   * Returns how many client connections the server has accepted since it started. Beside the
   * calls served it tells whether clients reuse their connections: a client that opens one per
   * call costs a TCP handshake and a new Jetty connection each time.
   */
  public long acceptedConnections() {
    return bounds.acceptedConnections();
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    jetty.join();
  }

  /** Stops the server: open streams are closed and in-flight requests cancelled. */
  @Override
  public void close() {
    try {
      jetty.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Jetty did not stop cleanly", e);
    }
  }

  /** Builds and starts a {@link McpHttpServer}. */
  public static final class Builder {
    private static final int ACCEPT_QUEUE = 1024;
    private final McpServer server;
    private String host = "127.0.0.1";
    private int port = 0;
    private String path = "/mcp";
    private Duration idleTimeout = Duration.ofMinutes(5);
    private Duration headerTimeout = Duration.ofSeconds(20);
    private Duration bodyTimeout = Duration.ofSeconds(30);
    private Duration writeTimeout = Duration.ofSeconds(30);
    private int maxConnections = 10_000;
    private int maxThreads = 200;
    private boolean selectorLane = Boolean.getBoolean("keel.http.selectorLane");
    private Consumer<McpServlet.Builder> customizer = b -> { };
    private URI clusterAddress;
    private dev.keel.mcp.http.console.Console console;

    private Builder(McpServer server) {
      this.server = Objects.requireNonNull(server, "server");
    }

    /** Sets the address to bind (default {@code 127.0.0.1}). */
    public Builder host(String value) {
      this.host = Objects.requireNonNull(value, "host");
      return this;
    }

    /** Sets the port (default 0: any free port). */
    public Builder port(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("port must be 0-65535: " + value);
      }
      this.port = value;
      return this;
    }

    /** Sets the endpoint path (default {@code /mcp}). */
    public Builder path(String value) {
      this.path = Objects.requireNonNull(value, "path");
      return this;
    }

    /**
     * Sets how long a connection may pass no bytes in either direction before it is closed
     * (default 5 minutes): a kept-alive connection between requests, or a request whose handler
     * runs without writing. Open SSE streams are written to at every keep-alive ({@code
     * McpServlet.Builder.keepAlive}, 15 s), so this must be longer than that, and longer than
     * the handler timeout of a tool whose client does not accept SSE.
     */
    public Builder idleTimeout(Duration value) {
      requirePositive(value, "idleTimeout");
      this.idleTimeout = value;
      return this;
    }

    /**
     * Sets how long a request head (request line and headers) may take to arrive (default
     * 20 s); a connection whose head is not complete by then is closed without an answer. On a
     * new connection the time counts from its opening, so a connection that never sends
     * anything (half-open) is closed then too; on a kept-alive connection it counts from the
     * first byte of the next request, and one that sends nothing is left to {@link
     * #idleTimeout}. The idle timeout alone would never close a head sent a byte at a time
     * (slow-loris): every byte restarts it.
     */
    public Builder headerTimeout(Duration value) {
      requirePositive(value, "headerTimeout");
      this.headerTimeout = value;
      return this;
    }

    /**
     * Sets how long a POST body may take to arrive once its head has (default 30 s); a body
     * still incomplete then is answered 408 and its connection closed. It is the servlet's
     * {@code McpServlet.Builder.bodyTimeout}: a value set there through {@link #servlet} wins.
     */
    public Builder bodyTimeout(Duration value) {
      requirePositive(value, "bodyTimeout");
      this.bodyTimeout = value;
      return this;
    }

    /**
     * Sets how long a response write may wait on a client that takes none of its bytes
     * (default 30 s): a client that stops reading a response or an SSE stream is disconnected
     * once the socket's buffers are full and no byte has moved for this long, and its stream is
     * released as for any disconnect (a request that cannot be resumed is cancelled). A slow
     * client that keeps reading is not cut off, however long a large response takes. Until
     * then, whoever writes to that stream (a notification's sender) waits, at most this long.
     */
    public Builder writeTimeout(Duration value) {
      requirePositive(value, "writeTimeout");
      this.writeTimeout = value;
      return this;
    }

    /**
     * Sets the most client connections open at once (default 10,000). At the limit the server
     * stops accepting: new connections wait in the operating system's accept queue (up to
     * 1,024, then they are refused) until an open one closes, while the open ones are served
     * as before. Idle, half-open and slow connections count too, so the header, body, write
     * and idle timeouts are what frees the places an attacker takes.
     */
    public Builder maxConnections(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxConnections must be positive: " + value);
      }
      this.maxConnections = value;
      return this;
    }

    /**
     * Sets the most container threads (default 200). Handlers and idle streams do not hold
     * container threads, so a small pool serves many clients.
     */
    public Builder maxThreads(int value) {
      if (value < 4) {
        throw new IllegalArgumentException("maxThreads must be at least 4: " + value);
      }
      this.maxThreads = value;
      return this;
    }

    /**
     * Sets whether calls to tools marked {@code ToolOptions.withNonBlocking()} are served on
     * Jetty's selector threads, before and without the servlet (default false, or the system
     * property {@code keel.http.selectorLane}, so a deployment can turn it on without a code
     * change). That path serves such a call with about 30 % less CPU than the servlet does
     * (docs/performance.md), and so are a new session's {@code initialize} and the DELETE
     * that ends a quiet session (nothing running or open in it); everything else, and every
     * refusal, still goes through the servlet and its gates. It is
     * taken only with the built-in local or API-key authenticator and without a fingerprint
     * resolver, rate limiter or shared cluster, any of which may block. With it, Jetty gets one
     * selector per available processor, since they now do the calls' work.
     *
     * <p>It is off by default because it changes what a mistake costs. A tool marked
     * non-blocking that blocks, or computes for long, holds a selector, and every connection
     * that selector serves waits for it; on the servlet path such a tool holds one of at most
     * 64 (or 16 per processor) container threads and the rest of the server goes on.
     * Turn it on when every non-blocking tool returns in microseconds.
     */
    public Builder selectorLane(boolean value) {
      this.selectorLane = value;
      return this;
    }

    /**
     * Serves the operator console too, under its own path and with its own operators'
     * credentials; it applies the MCP endpoint's Origin and Host rules.
     */
    public Builder console(dev.keel.mcp.http.console.Console value) {
      this.console = Objects.requireNonNull(value, "console");
      return this;
    }

    /**
     * Adjusts the servlet's options (origins, authenticator, limits, sessions, …). It runs after
     * this builder's own settings are applied, so what it sets wins (the body timeout).
     */
    public Builder servlet(Consumer<McpServlet.Builder> value) {
      this.customizer = Objects.requireNonNull(value, "servlet");
      return this;
    }

    /**
     * Answers Jetty's one question to the platform MBean server before it asks. Jetty's
     * {@code MemoryUtils} sizes its striped counters by how many references fit in a cache line,
     * and, unless told, learns whether oops are compressed by starting the platform MBean server
     * and asking HotSpot: about 360 classes (JMX, management, JFR's diagnostic commands) and
     * 80-180 ms of start-up, for a padding hint. Compressed oops are HotSpot's default
     * below a 32 GiB heap; a wrong guess only pads the counters more or less. A value the
     * application set is left alone.
     */
    private static void skipJettyMBeanProbe() {
      String key = "org.eclipse.jetty.util.referencesPerCacheLine";
      if (System.getProperty(key) == null) {
        int line = Integer.getInteger("org.eclipse.jetty.util.cacheLineBytes", 64);
        boolean compressed = Runtime.getRuntime().maxMemory() < (31L << 30);
        System.setProperty(key, String.valueOf(Math.max(1, line / (compressed ? 4 : 8))));
      }
    }

    /**
     * Starts the server.
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public McpHttpServer start() {
      McpServlet.Builder sb = McpServlet.builder(server).path(path).healthPath("/health")
          .loopbackOnly(isLoopback(host)).bodyTimeout(bodyTimeout);
      customizer.accept(sb);
      McpServlet servlet = sb.build();
      skipJettyMBeanProbe();
      QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
      threads.setName("keel-jetty");
      threads.setDaemon(true);
      Server jetty = new Server(threads);
      // No Server or X-Powered-By header: a version on every response only helps an attacker
      // pick an exploit (issue 14, finding 11).
      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      // No per-connection header cache: Jetty's parser looks every header line up in it before
      // its static table, and for MCP's traffic (a session id and a protocol version it cannot
      // cache on every request) the lookup cost more than it saved: echo over 64 connections,
      // 10-40 % more calls per second without it, 8-25 % less server CPU per call
      // (docs/performance.md, issue 22's sixth stop).
      http.setHeaderCacheSize(0);
      int selectors = selectorLane ? Math.max(1, Runtime.getRuntime().availableProcessors()) : 1;
      ServerConnector connector = new ServerConnector(jetty, 1, selectors,
          new HttpConnectionFactory(http));
      connector.setHost(host);
      connector.setPort(port);
      connector.setIdleTimeout(idleTimeout.toMillis());
      // Java's default backlog is 50: past maxConnections, a burst of honest clients should
      // wait in the kernel rather than be refused.
      connector.setAcceptQueueSize(ACCEPT_QUEUE);
      ConnectionBounds bounds = new ConnectionBounds(headerTimeout, writeTimeout);
      connector.addEventListener(bounds);
      jetty.addConnector(connector);
      jetty.addBean(new NetworkConnectionLimit(maxConnections, jetty));
      ServletContextHandler context = new ServletContextHandler();
      context.setContextPath("/");
      ServletHolder holder = new ServletHolder("mcp", servlet);
      holder.setAsyncSupported(true);
      context.addServlet(holder, "/*");
      if (console != null) {
        if (console.path().startsWith(path + "/") || console.path().equals(path + "/")) {
          throw new IllegalStateException("the console path " + console.path()
              + " must not lie under the MCP endpoint " + path);
        }
        ServletHolder operators = new ServletHolder("keel-console",
            console.servlet(server, sb.origins(), sb.hosts(), sb.loopback()));
        operators.setAsyncSupported(true);
        context.addServlet(operators, console.path() + "*");
      }
      // Refusals Jetty makes itself are JSON-RPC errors too, never its HTML pages that echo
      // the request URI and name the server.
      context.setErrorHandler(ContainerErrors.forContext());
      jetty.setErrorHandler(ContainerErrors.forServer());
      jetty.setHandler(bounds.wrap(selectorLane ? servlet.lane(context) : context));
      jetty.setStopAtShutdown(false);
      try {
        jetty.start();
      } catch (Exception e) {
        try {
          jetty.stop();
        } catch (Exception ignored) {
          // nothing more to release
        }
        throw new IllegalStateException("cannot listen on " + host + ":" + port + ": "
            + e.getMessage(), e);
      }
      McpHttpServer made = new McpHttpServer(jetty, servlet, host, connector.getLocalPort(),
          path, console == null ? null : console.path(), bounds);
      if (server.engine().cluster().shared()) {
        // the other nodes forward this node's sessions here from now on
        server.engine().cluster().join(clusterAddress != null ? clusterAddress
            : made.reachableEndpoint());
      }
      return made;
    }

    /**
     * Sets where the other nodes of its cluster reach this server (default: its endpoint, with
     * the machine's address when it is bound to every interface). Only for a server built with
     * {@code McpServer.Builder.cluster}.
     */
    public Builder clusterAddress(URI value) {
      this.clusterAddress = Objects.requireNonNull(value, "clusterAddress");
      return this;
    }

    private static void requirePositive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
    }

    private static boolean isLoopback(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
  }
}
