package dev.keel.mcp.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;

/**
 * A real, throw-away Redis for the tests, set up by the tests themselves: Debian's
 * {@code redis-server}, installed with apt-get when missing (as root, non-interactively), run as
 * a child process on 127.0.0.1 and a free port with no persistence and its files in a temporary
 * directory, stopped (and the directory deleted) by {@link #stop()} or when the JVM exits. When
 * Redis can be neither found nor installed, {@link #start()} throws: the tests fail, they are
 * never skipped.
 */
public final class TestRedis implements AutoCloseable {

  private static final Path BINARY = Path.of("/usr/bin/redis-server");

  private final Path dir;
  private final int port;
  private Process process;

  private TestRedis(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  /** Starts a Redis of its own (installing the package first if need be). */
  public static TestRedis start() throws IOException, InterruptedException {
    DebianPackages.ensure("redis-server", BINARY);
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    TestRedis redis = new TestRedis(Files.createTempDirectory("keel-redis"), port);
    redis.run();
    Runtime.getRuntime().addShutdownHook(new Thread(redis::stopQuietly, "test-redis-stop"));
    return redis;
  }

  /** Returns its URI, {@code redis://127.0.0.1:PORT}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** Starts it again on the same port (after {@link #kill()}), empty. */
  public void run() throws IOException, InterruptedException {
    process = new ProcessBuilder(BINARY.toString(), "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
        "--daemonize", "no", "--protected-mode", "yes")
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (ping()) {
        return;
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("redis-server did not answer PING on " + port + ":\n"
        + Files.readString(dir.resolve("redis.log")));
  }

  /** Kills it (SIGKILL) and waits until it is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  private boolean ping() {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(1000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] answer = in.readNBytes(7);
      return new String(answer, StandardCharsets.US_ASCII).startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    stopQuietly();
  }

  private synchronized void stopQuietly() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary directory; the system cleans it eventually
    }
  }
}
