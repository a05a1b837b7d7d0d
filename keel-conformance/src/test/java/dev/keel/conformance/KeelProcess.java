package dev.keel.conformance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real {@code keel} process (the CLI's main class on this module's test classpath), started as
 * a subprocess the way a user starts it, and stopped with SIGTERM.
 */
final class KeelProcess implements AutoCloseable {

  private final Process process;
  private final String url;

  private KeelProcess(Process process, String url) {
    this.process = process;
    this.url = url;
  }

  /**
   * Flags for the short-lived JVMs the tests start by the hundred on a 2-core machine: C1 only
   * and the serial collector start a keel process in about 70 % of the time and half the CPU.
   * (Application class-data sharing would halve it again, but the JVM will not record an
   * archive from a class path with directories in it, and the tests' has target/ directories.)
   */
  private static final List<String> QUICK = List.of("-XX:TieredStopAtLevel=1",
      "-XX:+UseSerialGC");

  /** Returns the java command that runs the keel CLI with these arguments. */
  static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.addAll(QUICK);
    String lane = System.getProperty("keel.http.selectorLane");
    if (lane != null) {
      // a suite run with the selector lane on runs its keel processes with it on too
      cmd.add("-Dkeel.http.selectorLane=" + lane);
    }
    cmd.add("-cp");
    cmd.add(classpath());
    cmd.add("dev.keel.cli.Main");
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String classpath() {
    String cp = System.getProperty("keel.test.classpath");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return cp.replace(",", File.pathSeparator);
  }

  /**
   * Starts {@code keel fixtures --port 0} and waits for its {@code listening on URL} line.
   */
  static KeelProcess fixtures() throws IOException, InterruptedException {
    return fixtures(new String[0]);
  }

  /** Starts {@code keel fixtures} with {@code extra} options (and {@code --port 0} unless they name one). */
  static KeelProcess fixtures(String... extra) throws IOException, InterruptedException {
    List<String> args = new java.util.ArrayList<>(List.of("fixtures"));
    if (!List.of(extra).contains("--port")) {
      args.addAll(List.of("--port", "0"));
    }
    args.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(command(args.toArray(String[]::new)))
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process = pb.start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        return null;
      }
    });
    String first;
    try {
      first = line.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      process.destroyForcibly();
      throw new IllegalStateException("keel fixtures printed nothing within 60 s", e);
    }
    if (first == null || !first.matches("listening on http://127\\.0\\.0\\.1:\\d+/mcp")) {
      process.destroyForcibly();
      throw new IllegalStateException("unexpected first line from keel fixtures: " + first);
    }
    return new KeelProcess(process, first.substring("listening on ".length()));
  }

  String url() {
    return url;
  }

  Process process() {
    return process;
  }

  /** Sends SIGTERM and returns the exit status. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor();
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      terminate();
    }
  }
}
