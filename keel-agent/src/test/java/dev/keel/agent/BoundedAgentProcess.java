package dev.keel.agent;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.McpHttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The agent in a JVM of its own with a small heap, for tests of what hostile statements cost the
 * server: the child serves {@code DatabaseAgent} over HTTP on 127.0.0.1 with two principals,
 * {@code hostile} and {@code other}, who both see everything, and exits at the first
 * {@link OutOfMemoryError} anywhere ({@code -XX:+ExitOnOutOfMemoryError}), so "still alive" means
 * no allocation failed, whoever caught it. Its stderr goes to a file the test reads; its stdin
 * takes {@code peak} (answered on stdout with the heap's peak use since the last one) and
 * {@code gc} (a collection first), and its end closes the agent down, so it never outlives the
 * test JVM.
 *
 * <p>Sources are {@code source.name=jdbc-url} arguments ({@code sample} for the embedded H2),
 * {@code timeout.name=millis} gives one a statement timeout of its own; credentials come from
 * the environment ({@code KEEL_USER_<name>}, {@code KEEL_PASSWORD_<name>}).
 */
final class BoundedAgentProcess implements AutoCloseable {

  static final String HOSTILE = "hostile-secret";
  static final String OTHER = "other-secret";

  private final Process process;
  private final Path stderr;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> other = java.util.Collections.synchronizedList(new ArrayList<>());
  private final URI endpoint;

  private BoundedAgentProcess(Process process, Path stderr) throws IOException {
    this.process = process;
    this.stderr = stderr;
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("listening on ") || line.startsWith("peak ")) {
            lines.add(line);
          } else {
            // the JVM's own last words (ExitOnOutOfMemoryError writes them to stdout)
            other.add(line);
          }
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "bounded-agent-stdout");
    reader.setDaemon(true);
    reader.start();
    String first = next(Duration.ofSeconds(60));
    if (first == null || !first.startsWith("listening on ")) {
      process.destroyForcibly();
      throw new IllegalStateException("the agent did not start: " + first + "\n" + stderr());
    }
    this.endpoint = URI.create(first.substring("listening on ".length()));
  }

  /**
   * Starts the agent with {@code heap} (for {@code -Xmx}), {@code limits} and {@code sources}
   * ({@code name} to JDBC URL, user and password; URL {@code sample} for the embedded H2).
   */
  static BoundedAgentProcess start(String heap, AgentLimits limits,
      Map<String, List<String>> sources) throws IOException {
    return start(heap, limits, sources, Map.of());
  }

  /** As above, with a statement timeout of its own for some sources. */
  static BoundedAgentProcess start(String heap, AgentLimits limits,
      Map<String, List<String>> sources, Map<String, Duration> timeouts) throws IOException {
    return start(heap, limits, sources, timeouts, List.of());
  }

  /** As above, with more options for the JVM (a class-loading log, say). */
  static BoundedAgentProcess start(String heap, AgentLimits limits,
      Map<String, List<String>> sources, Map<String, Duration> timeouts, List<String> jvmOptions)
      throws IOException {
    Path stderr = Files.createTempFile("keel-bounded-agent-", ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    command.addAll(jvmOptions);
    command.addAll(List.of(
        "-cp", System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")),
        BoundedAgentProcess.class.getName(),
        "maxRows=" + limits.maxRows(), "maxResultBytes=" + limits.maxResultBytes(),
        "timeoutMillis=" + limits.statementTimeout().toMillis(),
        "maxConcurrent=" + limits.maxConcurrentQueries(), "poolSize=" + limits.poolSize()));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
    sources.forEach((name, s) -> {
      command.add("source." + name + "=" + s.get(0));
      if (s.size() > 2) {
        pb.environment().put("KEEL_USER_" + name, s.get(1));
        pb.environment().put("KEEL_PASSWORD_" + name, s.get(2));
      }
    });
    timeouts.forEach((name, t) -> command.add("timeout." + name + "=" + t.toMillis()));
    pb.command(command);
    return new BoundedAgentProcess(pb.start(), stderr);
  }

  URI endpoint() {
    return endpoint;
  }

  AgentClient client(String bearer) {
    return new AgentClient(endpoint, bearer);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** How the process ended (or that it runs), with what it wrote besides its answers. */
  String state() {
    String err = stderr();
    String tail = err.length() > 2_000 ? "..." + err.substring(err.length() - 2_000) : err;
    return (process.isAlive() ? "running" : "exited with " + process.exitValue())
        + "; stdout: " + other + "; stderr: " + tail;
  }

  /** What the agent wrote to stderr so far. */
  String stderr() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(stderr unreadable: " + e + ")";
    }
  }

  /**
   * The heap's peak use since the previous call: {@code [0]} the most in use at once (sampled
   * every few milliseconds, garbage included), {@code [1]} the long-lived generation's peak.
   */
  synchronized long[] peakHeapBytes() throws IOException {
    return ask("peak");
  }

  /** Collects garbage in the agent, then answers as {@link #peakHeapBytes}. */
  synchronized long[] collect() throws IOException {
    return ask("gc");
  }

  private long[] ask(String command) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
    in.flush();
    String line = next(Duration.ofSeconds(10));
    if (line == null || !line.startsWith("peak ")) {
      throw new IllegalStateException("no peak from the agent: " + line);
    }
    String[] parts = line.split(" ");
    return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
  }

  private String next(Duration wait) {
    try {
      return lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public void close() {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    try {
      Files.deleteIfExists(stderr);
    } catch (IOException e) {
      // a temporary file
    }
  }

  /** The child: serves the agent until its stdin ends. */
  public static void main(String[] args) throws Exception {
    AgentLimits limits = AgentLimits.defaults();
    DatabaseAgent.Builder builder = DatabaseAgent.builder();
    AccessPolicy everyone = AccessPolicy.builder().grantAll("hostile").grantAll("other").build();
    List<String[]> sources = new ArrayList<>();
    Map<String, Long> timeouts = new java.util.HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      String key = arg.substring(0, eq);
      String value = arg.substring(eq + 1);
      switch (key) {
        case "maxRows" -> limits = limits.withMaxRows(Integer.parseInt(value));
        case "maxResultBytes" -> limits = limits.withMaxResultBytes(Long.parseLong(value));
        case "timeoutMillis" -> limits = limits.withStatementTimeout(
            Duration.ofMillis(Long.parseLong(value)));
        case "maxConcurrent" -> limits = limits.withMaxConcurrentQueries(
            Integer.parseInt(value));
        case "poolSize" -> limits = limits.withPoolSize(Integer.parseInt(value));
        default -> {
          if (key.startsWith("timeout.")) {
            timeouts.put(key.substring("timeout.".length()), Long.parseLong(value));
          } else {
            sources.add(new String[] {key.substring("source.".length()), value});
          }
        }
      }
    }
    for (String[] s : sources) {
      DatabaseSource source = s[1].equals("sample") ? DatabaseSource.sample(s[0])
          : DatabaseSource.of(s[0], s[1], System.getenv("KEEL_USER_" + s[0]),
              System.getenv("KEEL_PASSWORD_" + s[0]));
      Long timeout = timeouts.get(s[0]);
      builder.source(source.withAccess(everyone).withLimits(timeout == null ? limits
          : limits.withStatementTimeout(Duration.ofMillis(timeout))));
    }
    try (DatabaseAgent agent = builder.build();
        McpHttpServer http = McpHttpServer.builder(agent.server()).host("127.0.0.1").port(0)
            .servlet(b -> b.authenticator(Authenticator.bearerTokens(
                Map.of(HOSTILE, "hostile", OTHER, "other"))))
            .start()) {
      System.out.println("listening on " + http.endpoint());
      System.out.flush();
      Thread sampler = new Thread(() -> {
        while (true) {
          SAMPLED.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
              .getUsed(), Math::max);
          try {
            Thread.sleep(2);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "bounded-agent-heap-sampler");
      sampler.setDaemon(true);
      sampler.start();
      resetPeaks();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
          StandardCharsets.US_ASCII));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.equals("peak")) {
          System.out.println("peak " + resetPeaks());
          System.out.flush();
        } else if (line.equals("gc")) {
          System.gc();
          System.out.println("peak " + resetPeaks());
          System.out.flush();
        }
      }
    }
    System.exit(0);
  }

  private static final java.util.concurrent.atomic.AtomicLong SAMPLED =
      new java.util.concurrent.atomic.AtomicLong();

  /** Returns "sampled-peak long-lived-peak" and starts counting again. */
  private static String resetPeaks() {
    long old = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      String name = pool.getName().toLowerCase(java.util.Locale.ROOT);
      if (pool.getType() == MemoryType.HEAP && !name.contains("eden")
          && !name.contains("survivor")) {
        old += pool.getPeakUsage().getUsed();
      }
      pool.resetPeakUsage();
    }
    return SAMPLED.getAndSet(0) + " " + old;
  }
}
