package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A Keel server through {@code mcp-remote} 0.15.1 (npm), the stdio-to-HTTP bridge desktop
 * clients use: {@code mcp-remote http://127.0.0.1:PORT/mcp} is spawned against
 * {@code keel fixtures} over HTTP, and this test speaks MCP over the bridge's stdio as a desktop
 * client would: initialize, list the tools, call one.
 *
 * <p>The bridge puts an {@code Mcp-Method} header on every request, a plain 2025
 * {@code initialize} included; a server that took that header for the 2026-07-28 era answered
 * "_meta must carry ..." and the bridge hung.
 */
class McpRemoteInteropTest {

  private static final long ANSWER_SECONDS = 30;

  @TempDir
  Path scratch;

  @Test
  void aDesktopClientThroughMcpRemoteInitializesListsAndCallsATool() throws Exception {
    NpmTools.ensureInstalled();
    try (KeelProcess keel = KeelProcess.fixtures()) {
      Path config = Files.createDirectories(scratch.resolve("mcp-auth"));
      Path stderr = scratch.resolve("mcp-remote.err");
      ProcessBuilder pb = new ProcessBuilder(NpmTools.bin("node").toString(),
          NpmTools.DIR.resolve("node_modules/mcp-remote/dist/proxy.js").toString(), keel.url())
          .directory(scratch.toFile()).redirectError(stderr.toFile());
      // Its OAuth state would go to ~/.mcp-auth; the fixtures need none, and nothing is left.
      pb.environment().put("MCP_REMOTE_CONFIG_DIR", config.toString());
      Process bridge = pb.start();
      try {
        Lines lines = new Lines(bridge);
        OutputStream in = bridge.getOutputStream();
        send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"desktop-client\",\"version\":\"1.0.0\"}}}");
        JsonNode init = lines.answerTo(1, stderr);
        assertThat(init.at("/result/serverInfo/name").asString()).isEqualTo("keel-fixtures");
        assertThat(init.at("/result/protocolVersion").asString()).startsWith("2025-");
        send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

        send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
        JsonNode list = lines.answerTo(2, stderr);
        List<String> names = new ArrayList<>();
        list.at("/result/tools").forEach(t -> names.add(t.get("name").asString()));
        assertThat(names).contains("echo", "sleep");

        send(in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"echo\",\"arguments\":{\"text\":\"through the bridge\"}}}");
        JsonNode call = lines.answerTo(3, stderr);
        assertThat(call.at("/result/content/0/text").asString()).isEqualTo("through the bridge");
        assertThat(call.at("/result/isError").asBoolean(false)).isFalse();
      } finally {
        bridge.destroy();
        if (!bridge.waitFor(10, TimeUnit.SECONDS)) {
          bridge.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static void send(OutputStream in, String json) throws IOException {
    in.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** The bridge's stdout, one JSON-RPC message per line, read on a daemon thread. */
  private static final class Lines {
    private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

    Lines(Process process) {
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            queue.add(line);
          }
        } catch (IOException e) {
          // the bridge ended
        }
      }, "mcp-remote-stdout");
      reader.setDaemon(true);
      reader.start();
    }

    /** Returns the response with this id, skipping notifications; fails after a timeout. */
    JsonNode answerTo(long id, Path stderr) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
      while (true) {
        long left = deadline - System.nanoTime();
        String line = left <= 0 ? null : queue.poll(left, TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new AssertionError("no answer to request " + id + " through mcp-remote within "
              + ANSWER_SECONDS + " s; its stderr:\n" + tail(stderr));
        }
        if (!line.startsWith("{")) {
          continue;
        }
        JsonNode message = McpJson.standard().parse(line);
        if (message.path("id").asLong(-1) == id) {
          assertThat(message.has("error")).as("%s\n%s", line, tail(stderr)).isFalse();
          return message;
        }
      }
    }

    private static String tail(Path file) throws IOException {
      String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    }
  }
}
