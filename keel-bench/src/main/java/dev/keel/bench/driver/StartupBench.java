package dev.keel.bench.driver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Start-up and footprint of a server process: the time from starting {@code command} (a
 * {@code java -jar ...}) to the first line of its output that says it listens ({@code listening
 * on}, any case), and its resident set after it has then sat idle for {@code --idle} seconds.
 * The process is stopped afterwards. One JSON line in the shape {@code Driver} writes:
 * {@code server} is the label, {@code scenario} {@code startup}.
 *
 * <pre>
 * StartupBench --label NAME [--idle S] [--rep N] [--out FILE] -- COMMAND ARGS...
 * </pre>
 */
public final class StartupBench {

  private static final long LIMIT_SECONDS = 120;

  private StartupBench() {}

  public static void main(String[] args) throws Exception {
    int split = Arrays.asList(args).indexOf("--");
    if (split < 0 || split == args.length - 1) {
      throw new IllegalArgumentException("StartupBench: the command follows --");
    }
    Map<String, String> o = ResultLines.options(Arrays.copyOfRange(args, 0, split));
    List<String> command = List.of(Arrays.copyOfRange(args, split + 1, args.length));
    ResultLines.emit(o, run(o, command));
  }

  /** Starts {@code command} once, measures it and stops it. */
  public static Map<String, Object> run(Map<String, String> o, List<String> command)
      throws Exception {
    double idle = Double.parseDouble(o.getOrDefault("idle", "5"));
    long start = System.nanoTime();
    Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
        .start();
    try {
      CompletableFuture<Long> listening = new CompletableFuture<>();
      StringBuilder seen = new StringBuilder();
      Thread reader = new Thread(() -> read(process, start, listening, seen), "startup-output");
      reader.setDaemon(true);
      reader.start();
      long nanos;
      try {
        nanos = listening.get(LIMIT_SECONDS, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        synchronized (seen) {
          throw new IllegalStateException("no 'listening on' line from " + command + "; it said:\n"
              + seen, e);
        }
      }
      Thread.sleep((long) (idle * 1000));
      long rss = new ServerMemory(process.pid()).rssBytes();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("server", o.getOrDefault("label", command.get(command.size() - 1)));
      r.put("scenario", "startup");
      r.put("rep", Integer.parseInt(o.getOrDefault("rep", "1")));
      r.put("startupMs", Math.round(nanos / 1e4) / 100.0);
      r.put("rssBytes", rss);
      r.put("errors", rss > 0 && process.isAlive() ? 0 : 1);
      return r;
    } finally {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static void read(Process process, long start, CompletableFuture<Long> listening,
      StringBuilder seen) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (!listening.isDone() && line.toLowerCase(Locale.ROOT).contains("listening on")) {
          listening.complete(System.nanoTime() - start);
        }
        synchronized (seen) {
          if (seen.length() < 20_000) {
            seen.append(line).append('\n');
          }
        }
      }
      listening.completeExceptionally(new IOException("the process ended"));
    } catch (IOException e) {
      listening.completeExceptionally(e);
    }
  }
}
