package dev.keel.mcp.http;

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
 */
public final class McpHttpServer implements AutoCloseable {

  private final Server jetty;
  private final McpServlet servlet;
  private final String host;
  private final int port;
  private final String path;

  private McpHttpServer(Server jetty, McpServlet servlet, String host, int port, String path) {
    this.jetty = jetty;
    this.servlet = servlet;
    this.host = host;
    this.port = port;
    this.path = path;
  }

  /** Returns a builder for a server of {@code server}. */
  public static Builder builder(McpServer server) {
    return new Builder(server);
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
    private final McpServer server;
    private String host = "127.0.0.1";
    private int port = 0;
    private String path = "/mcp";
    private Duration idleTimeout = Duration.ofMinutes(5);
    private int maxThreads = 200;
    private Consumer<McpServlet.Builder> customizer = b -> { };
    private URI clusterAddress;

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

    /** Sets how long an idle connection stays open (default 5 minutes). */
    public Builder idleTimeout(Duration value) {
      this.idleTimeout = Objects.requireNonNull(value, "idleTimeout");
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

    /** Adjusts the servlet's options (origins, authenticator, limits, sessions, …). */
    public Builder servlet(Consumer<McpServlet.Builder> value) {
      this.customizer = Objects.requireNonNull(value, "servlet");
      return this;
    }

    /**
     * Starts the server.
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public McpHttpServer start() {
      McpServlet.Builder sb = McpServlet.builder(server).path(path).healthPath("/health")
          .loopbackOnly(isLoopback(host));
      customizer.accept(sb);
      McpServlet servlet = sb.build();
      QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
      threads.setName("keel-jetty");
      threads.setDaemon(true);
      Server jetty = new Server(threads);
      // No Server or X-Powered-By header: a version on every response only helps an attacker
      // pick an exploit (issue 14, finding 11).
      HttpConfiguration http = new HttpConfiguration();
      http.setSendServerVersion(false);
      http.setSendXPoweredBy(false);
      ServerConnector connector = new ServerConnector(jetty, 1, 1,
          new HttpConnectionFactory(http));
      connector.setHost(host);
      connector.setPort(port);
      connector.setIdleTimeout(idleTimeout.toMillis());
      jetty.addConnector(connector);
      ServletContextHandler context = new ServletContextHandler();
      context.setContextPath("/");
      ServletHolder holder = new ServletHolder("mcp", servlet);
      holder.setAsyncSupported(true);
      context.addServlet(holder, "/*");
      // Refusals Jetty makes itself are JSON-RPC errors too, never its HTML pages that echo
      // the request URI and name the server.
      context.setErrorHandler(ContainerErrors.forContext());
      jetty.setErrorHandler(ContainerErrors.forServer());
      jetty.setHandler(context);
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
          path);
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

    private static boolean isLoopback(String host) {
      try {
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
  }
}
