package dev.keel.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An MCP server written against a TypeScript SDK ({@code src/test/resources/ts/*.mjs}), run as a
 * real Node 22 subprocess from the npm harness.
 *
 * <p>Node resolves a script's bare imports from the {@code node_modules} folders above the
 * script's own location, and the scripts live on the test classpath, far from
 * {@code npm/node_modules}. So a script is staged into {@code target/ts-servers}, next to a
 * {@code node_modules} symlink into the harness: the scripts then import the SDKs by their
 * published names, exactly as an application would.
 */
final class NodeServer implements AutoCloseable {

  /** Where the scripts run from; inside {@code target}, so {@code mvn clean} removes it. */
  static final Path STAGE = Path.of("target", "ts-servers").toAbsolutePath();
  private static final int LOG_CAP = 16 * 1024;

  private final Process process;
  private final URI endpoint;
  private final StringBuilder log;

  private NodeServer(Process process, URI endpoint, StringBuilder log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /**
   * Copies {@code ts/<script>} from the test classpath into {@link #STAGE} (with the
   * {@code node_modules} link) and returns its path. Needs {@link NpmTools#ensureInstalled()}.
   */
  static synchronized Path stage(String script) throws IOException {
    Files.createDirectories(STAGE);
    Path modules = STAGE.resolve("node_modules");
    if (!Files.exists(modules)) {
      Files.deleteIfExists(modules); // a dangling link from an older checkout
      Files.createSymbolicLink(modules, NpmTools.DIR.resolve("node_modules"));
    }
    Path target = STAGE.resolve(script);
    try (InputStream in = NodeServer.class.getResourceAsStream("/ts/" + script)) {
      if (in == null) {
        throw new IllegalStateException("no ts/" + script + " on the test classpath");
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  /** Returns the command that runs a staged script with the harness's Node 22. */
  static List<String> command(Path script, String... args) {
    List<String> command = new ArrayList<>();
    command.add(NpmTools.bin("node").toString());
    command.add(script.toString());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * Starts a script that serves HTTP and waits (up to 60 s) for the endpoint URL it prints as
   * its first stdout line. Its stderr is kept, capped, for failure messages.
   */
  static NodeServer startHttp(String script, String... args)
      throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command(stage(script), args)).directory(STAGE.toFile())
        .start();
    StringBuilder log = new StringBuilder();
    drain(process.getErrorStream(), log, "stderr");
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    String line;
    try {
      line = first.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      stop(process);
      throw new IllegalStateException(script + " printed no URL within 60 s; stderr:\n"
          + snapshot(log), e);
    }
    if (line == null || !line.matches("http://127\\.0\\.0\\.1:\\d+/mcp")) {
      stop(process);
      throw new IllegalStateException(script + " printed " + line + " instead of its URL; "
          + "stderr:\n" + snapshot(log));
    }
    // Keep reading so a chatty server can never block on a full pipe.
    drain(process.getInputStream(), log, "stdout");
    return new NodeServer(process, URI.create(line), log);
  }

  URI endpoint() {
    return endpoint;
  }

  /** Returns what the server wrote to stderr so far (capped), for assertion messages. */
  String log() {
    return snapshot(log);
  }

  /** Stops the server: SIGTERM (the scripts close their listeners and exit), then SIGKILL. */
  @Override
  public void close() throws InterruptedException {
    stop(process);
  }

  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void drain(InputStream stream, StringBuilder log, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (log) {
            if (log.length() < LOG_CAP) {
              log.append(line, 0, Math.min(line.length(), LOG_CAP - log.length())).append('\n');
            }
          }
        }
      } catch (IOException e) {
        // The process ended; what it wrote so far is kept.
      }
    }, "node-server-" + name);
    t.setDaemon(true);
    t.start();
  }

  private static String snapshot(StringBuilder log) {
    synchronized (log) {
      return log.toString();
    }
  }
}
