package dev.keel.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code keel agent} on its embedded sample database (H2 in memory, so each process has
 * its own), on a free loopback port, stopped with SIGTERM.
 */
final class KeelAgentProcess implements AutoCloseable {

  private final Process process;
  private final String url;

  private KeelAgentProcess(Process process, String url) {
    this.process = process;
    this.url = url;
  }

  /** Starts {@code keel agent --port 0} with {@code extra} options and waits for its URL. */
  static KeelAgentProcess start(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("agent", "--port", "0"));
    args.addAll(List.of(extra));
    Process process = new ProcessBuilder(KeelProcess.command(args.toArray(String[]::new)))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8));
    String first;
    try {
      first = CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (IOException e) {
          return "read failed: " + e;
        }
      }).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw e;
    }
    if (first == null || !first.matches("listening on http://127\\.0\\.0\\.1:\\d+/mcp")) {
      process.destroyForcibly();
      throw new IllegalStateException("unexpected first line from keel agent: " + first);
    }
    // the banner goes on; nobody reads it, so it must not fill the pipe and block the agent
    Thread drain = new Thread(() -> {
      try {
        while (out.readLine() != null) {
          // discarded
        }
      } catch (IOException e) {
        // the agent ended
      }
    }, "agent-stdout");
    drain.setDaemon(true);
    drain.start();
    return new KeelAgentProcess(process, first.substring("listening on ".length()));
  }

  String url() {
    return url;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
