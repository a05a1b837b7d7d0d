package dev.keel.bench.servers;

import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One Jetty 12 setup for every servlet the benchmark compares, the same as Keel's
 * {@code McpHttpServer} uses (200 threads at most, one acceptor, one selector, its HTTP
 * settings), so a difference in the numbers comes from the servlet and not from the container.
 */
final class Jetty {

  static final int MAX_THREADS = 200;

  private Jetty() {}

  /** Starts {@code servlet} at {@code path} on 127.0.0.1:{@code port} and returns the server. */
  static Server start(HttpServlet servlet, String path, int port) throws Exception {
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder holder = new ServletHolder("mcp", servlet);
    holder.setAsyncSupported(true);
    context.addServlet(holder, path);
    return start(context, port);
  }

  /** Starts a core {@code handler} (no servlet layer) on 127.0.0.1:{@code port}. */
  static Server start(Handler handler, int port) throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 8);
    threads.setName("bench-jetty");
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    // Keel's McpHttpServer's HTTP settings too: no Server or X-Powered-By header, and no
    // per-connection header cache (McpHttpServer says why)
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    http.setHeaderCacheSize(0);
    ServerConnector connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    connector.setIdleTimeout(300_000);
    jetty.addConnector(connector);
    jetty.setHandler(handler);
    jetty.start();
    return jetty;
  }

  /** Returns the port {@code jetty} listens on. */
  static int port(Server jetty) {
    return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }
}
