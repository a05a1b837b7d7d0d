package dev.keel.conformance;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.keel.mcp.redis.DebianPackages;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real load balancer for the cluster tests: Debian's HAProxy, installed with apt-get when
 * missing, run in the foreground on 127.0.0.1 and a free port, balancing round-robin per request (static-rr: strictly in turn, so a test can steer)
 * with no stickiness of any kind. Each answer says which node took the request
 * ({@code X-Served-By: a|b|c}); a node that stops answering is retried elsewhere and taken out
 * by a health check on {@code /health}, as production configurations do.
 */
final class TestHaproxy implements AutoCloseable {

  private static final Path BINARY = Path.of("/usr/sbin/haproxy");

  private final Path dir;
  private final int port;
  private final Process process;

  private TestHaproxy(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /** Starts a balancer in front of {@code nodes} (their MCP URLs), named a, b, c… in order. */
  static TestHaproxy start(List<String> nodes) throws IOException, InterruptedException {
    DebianPackages.ensure("haproxy", BINARY);
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    StringBuilder servers = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      URI u = URI.create(nodes.get(i));
      servers.append("  server ").append((char) ('a' + i)).append(' ').append(u.getHost())
          .append(':').append(u.getPort()).append(" check inter 500 fall 2 rise 1\n");
    }
    String config = String.join("\n",
        "global",
        "  maxconn 4096",
        "defaults",
        "  mode http",
        "  timeout connect 1s",
        "  timeout client 10m",
        "  timeout server 10m",
        "  timeout http-keep-alive 5s",
        "  retries 2",
        "  option redispatch 1",
        "frontend mcp",
        "  bind 127.0.0.1:" + port,
        "  default_backend nodes",
        "backend nodes",
        "  balance static-rr",
        "  option httpchk GET /health",
        "  http-response set-header X-Served-By %[srv_name]",
        servers.toString());
    Path dir = Files.createTempDirectory("keel-haproxy");
    Path cfg = dir.resolve("haproxy.cfg");
    Files.writeString(cfg, config + "\n");
    Process process = new ProcessBuilder(BINARY.toString(), "-f", cfg.toString(), "-db")
        .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
    TestHaproxy lb = new TestHaproxy(dir, port, process);
    Runtime.getRuntime().addShutdownHook(new Thread(lb::close, "test-haproxy-stop"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return lb;
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          break;
        }
        Thread.sleep(50);
      }
    }
    lb.close();
    throw new IllegalStateException("haproxy did not listen on " + port + ":\n"
        + Files.readString(dir.resolve("haproxy.log")));
  }

  /** Returns the MCP endpoint behind the balancer. */
  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port + "/mcp");
  }

  /** Returns the balancer's own health URL (answered by the next node in turn). */
  URI health() {
    return URI.create("http://127.0.0.1:" + port + "/health");
  }

  @Override
  public synchronized void close() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
