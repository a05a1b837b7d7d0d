package dev.keel.mcp.test;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The server under test as one run of an {@link McpTest} sees it: the server, the era and the
 * transport of this run, the client injected into the test, and more clients on demand (each
 * closed after the test). Over HTTP every client of a run talks to the same embedded server.
 *
 * <pre>{@code
 * @McpTest
 * void asksForTheName(McpTestTarget target) {
 *   McpTestClient client = target.connect(b -> b.elicitation(Replies.accept("{\"name\":\"Ada\"}")));
 *   assertThat(client.call("greet")).hasText("Hello, Ada!");
 * }
 * }</pre>
 */
public final class McpTestTarget {

  private final McpServer server;
  private final boolean ownsServer;
  private final Era era;
  private final TestTransport transport;
  private final List<McpTestClient> clients = new ArrayList<>();
  private McpHttpServer http;
  private McpTestClient client;

  McpTestTarget(McpServer server, boolean ownsServer, Era era, TestTransport transport) {
    this.server = server;
    this.ownsServer = ownsServer;
    this.era = era;
    this.transport = transport;
  }

  /** Returns the server under test. */
  public McpServer server() {
    return server;
  }

  /** Returns this run's era. */
  public Era era() {
    return era;
  }

  /** Returns this run's transport. */
  public TestTransport transport() {
    return transport;
  }

  /** Returns the HTTP endpoint of this run (starting the embedded server), or null in-memory. */
  public synchronized URI endpoint() {
    if (transport != TestTransport.HTTP) {
      return null;
    }
    if (http == null) {
      http = McpHttpServer.builder(server).host("127.0.0.1").port(0).start();
    }
    return http.endpoint();
  }

  /** Returns the client the test was given, connecting it on first use. */
  public synchronized McpTestClient client() {
    if (client == null) {
      client = connect(b -> { });
    }
    return client;
  }

  /**
   * Connects another client in this run's era and transport, configured by {@code configure}
   * (scripted replies, log level, principal, timeouts); it is closed after the test.
   */
  public synchronized McpTestClient connect(Consumer<McpTestClient.Builder> configure) {
    Objects.requireNonNull(configure, "configure");
    McpTestClient.Builder b = transport == TestTransport.HTTP
        ? McpTestClient.builder(endpoint()) : McpTestClient.builder(server);
    b.era(era);
    configure.accept(b);
    McpTestClient c = b.connect();
    clients.add(c);
    return c;
  }

  /** Closes the clients, then the HTTP server, then the server when this run made it. */
  synchronized void close() {
    RuntimeException first = null;
    for (McpTestClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    clients.clear();
    if (http != null) {
      try {
        http.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (ownsServer) {
      server.close();
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return era.name().toLowerCase(java.util.Locale.ROOT) + ", " + transport.displayName();
  }
}
