package dev.keel.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The pinned npm tools the tests run (conformance suite, TypeScript SDKs, FastMCP for
 * TypeScript, mcp-remote, Node 22), installed
 * into {@code keel-conformance/npm} from its committed lockfile the first time a test needs them.
 */
final class NpmTools {

  static final Path DIR = Path.of("npm").toAbsolutePath();
  /** The suite for the legacy era, 0.1.16. */
  static final Path LEGACY_SUITE =
      DIR.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
  /** The suite for 2026-07-28, 0.2.0-alpha.12 (installed under an npm alias). */
  static final Path SUITE_2026 = DIR.resolve("node_modules/conformance-2026/dist/index.js");
  private static boolean installed;

  private NpmTools() {}

  /** Installs the tools with {@code npm ci} unless they are already there. */
  static synchronized void ensureInstalled() throws IOException, InterruptedException {
    if (installed) {
      return;
    }
    if (!Files.isRegularFile(LEGACY_SUITE) || !Files.isRegularFile(SUITE_2026)
        || !Files.isExecutable(bin("node"))
        || !Files.isDirectory(DIR.resolve("node_modules/@modelcontextprotocol/sdk"))
        || !Files.isDirectory(DIR.resolve("node_modules/@modelcontextprotocol/client"))
        || !Files.isDirectory(DIR.resolve("node_modules/@modelcontextprotocol/server"))
        || !Files.isDirectory(DIR.resolve("node_modules/fastmcp"))
        || !Files.isDirectory(DIR.resolve("node_modules/mcp-remote"))) {
      Result r = run(List.of("npm", "ci", "--no-audit", "--no-fund"), DIR, Duration.ofMinutes(5));
      if (r.exit() != 0) {
        throw new IllegalStateException("npm ci failed in " + DIR + ":\n" + r.output());
      }
    }
    installed = true;
  }

  /** Returns the command that runs a suite's CLI with Node 22. */
  static List<String> suite(Path script, String... args) {
    List<String> command = new ArrayList<>();
    command.add(bin("node").toString());
    command.add(script.toString());
    command.addAll(List.of(args));
    return command;
  }

  /** Returns a tool from {@code node_modules/.bin}. */
  static Path bin(String name) {
    return DIR.resolve("node_modules/.bin").resolve(name);
  }

  /** What a finished process printed, and its exit status. */
  record Result(int exit, String output) {}

  /**
   * Runs a command with Node 22 first on the PATH, stdout and stderr merged, and kills it after
   * {@code timeout}.
   */
  static Result run(List<String> command, Path dir, Duration timeout)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile())
        .redirectErrorStream(true);
    pb.environment().put("PATH", DIR.resolve("node_modules/.bin") + File.pathSeparator
        + System.getenv("PATH"));
    pb.environment().put("NO_COLOR", "1");
    Path log = Files.createTempFile("keel-npm", ".log");
    pb.redirectOutput(log.toFile());
    Process process = pb.start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        return new Result(-1, "timed out after " + timeout + "\n"
            + Files.readString(log, StandardCharsets.UTF_8));
      }
      return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      Files.deleteIfExists(log);
    }
  }
}
