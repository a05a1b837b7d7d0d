package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel fixtures --stdio} as a real subprocess, through the whole lifecycle: handshake,
 * lists, calls with progress and logs, a resource, a prompt, an elicitation answered on stdin,
 * a cancellation, and exit on end of input. Every line it writes to stdout must be JSON-RPC.
 */
class StdioLifecycleTest {

  Process process;
  OutputStream stdin;
  final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
  final List<String> nonProtocolLines = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void start() throws IOException {
    process = new ProcessBuilder(KeelProcess.command("fixtures", "--stdio"))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    stdin = process.getOutputStream();
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          try {
            JsonNode node = McpJson.standard().parse(line);
            if (!node.isObject() || !"2.0".equals(node.path("jsonrpc").asString(""))) {
              nonProtocolLines.add(line);
            }
            received.add(node);
          } catch (IllegalArgumentException e) {
            nonProtocolLines.add(line);
          }
        }
      } catch (IOException e) {
        // process ended
      }
    }, "stdio-test-reader");
    reader.setDaemon(true);
    reader.start();
  }

  @AfterEach
  void stop() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  void send(String json) throws IOException {
    stdin.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  JsonNode await(Predicate<JsonNode> what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<JsonNode> skipped = new ArrayList<>();
    try {
      while (System.nanoTime() < deadline) {
        JsonNode next = received.poll(100, TimeUnit.MILLISECONDS);
        if (next == null) {
          continue;
        }
        if (what.test(next)) {
          return next;
        }
        skipped.add(next);
      }
      throw new AssertionError("no matching message within 20 s; saw " + skipped);
    } finally {
      received.addAll(skipped);
    }
  }

  static Predicate<JsonNode> response(int id) {
    return n -> n.has("id") && n.get("id").isNumber() && n.get("id").asInt() == id
        && !n.has("method");
  }

  static Predicate<JsonNode> method(String name) {
    return n -> name.equals(n.path("method").asString(""));
  }

  @Test
  void wholeLifecycleOverStdio() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
        + "\"clientInfo\":{\"name\":\"stdio-test\",\"version\":\"1\"}}}");
    JsonNode init = await(response(1)).get("result");
    assertThat(init.get("protocolVersion").asString()).isEqualTo("2025-11-25");
    assertThat(init.get("serverInfo").get("name").asString()).isEqualTo("keel-fixtures");
    assertThat(init.get("capabilities").has("tools")).isTrue();
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    List<String> names = new ArrayList<>();
    await(response(2)).get("result").get("tools").forEach(t -> names.add(t.get("name").asString()));
    assertThat(names).contains("test_simple_text", "test_sleep", "test_block_read", "echo",
        "json_schema_2020_12_tool", "test_reconnection");

    send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"test_tool_with_progress\",\"arguments\":{},"
        + "\"_meta\":{\"progressToken\":\"tok-3\"}}}");
    JsonNode done = await(response(3));
    List<JsonNode> progress = new ArrayList<>();
    for (JsonNode n : received) {
      if (method("notifications/progress").test(n)) {
        progress.add(n.get("params"));
      }
    }
    received.removeIf(method("notifications/progress"));
    assertThat(progress).hasSize(3);
    assertThat(progress).allSatisfy(p -> assertThat(p.get("progressToken").asString())
        .isEqualTo("tok-3"));
    assertThat(progress.get(2).get("progress").asDouble()).isEqualTo(100.0);
    assertThat(done.get("result").get("content").get(0).get("type").asString())
        .isEqualTo("text");

    send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":"
        + "{\"uri\":\"test://static-text\"}}");
    assertThat(await(response(4)).get("result").get("contents").get(0).get("text").asString())
        .isEqualTo("This is the content of the static text resource.");

    send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{\"name\":"
        + "\"test_prompt_with_arguments\",\"arguments\":{\"arg1\":\"one\",\"arg2\":\"two\"}}}");
    assertThat(await(response(5)).get("result").get("messages").get(0).get("content")
        .get("text").asString()).contains("one").contains("two");

    send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"test_elicitation\",\"arguments\":{\"message\":\"Who?\"}}}");
    JsonNode ask = await(method("elicitation/create"));
    assertThat(ask.get("params").get("message").asString()).isEqualTo("Who?");
    send("{\"jsonrpc\":\"2.0\",\"id\":" + ask.get("id") + ",\"result\":{\"action\":\"accept\","
        + "\"content\":{\"username\":\"stdio-user\",\"email\":\"s@example.com\"}}}");
    String answer = await(response(6)).get("result").get("content").get(0).get("text")
        .asString();
    assertThat(answer).contains("accept").contains("stdio-user");

    send("not json at all");
    JsonNode parseError = await(n -> n.has("error") && n.get("id").isNull());
    assertThat(parseError.get("error").get("code").asInt()).isEqualTo(-32700);

    send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"test_sleep\",\"arguments\":{\"ms\":60000}}}");
    Thread.sleep(200);
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
        + "{\"requestId\":7,\"reason\":\"test\"}}");
    send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
    assertThat(await(response(8)).get("result").isObject()).isTrue();
    Thread.sleep(500);
    assertThat(received).noneMatch(response(7));

    stdin.close();
    assertThat(process.waitFor(15, TimeUnit.SECONDS)).as("exits on end of input").isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(received).noneMatch(response(7));
    assertThat(nonProtocolLines).as("stdout carries only MCP messages").isEmpty();
  }

  static final String MODERN_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";

  @Test
  void statelessRequestsOverStdioWithoutAnyInitialize() throws Exception {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{"
        + MODERN_META + "}}");
    JsonNode discover = await(response(1)).get("result");
    assertThat(discover.get("supportedVersions").toString()).contains("2026-07-28");
    assertThat(discover.get("resultType").asString()).isEqualTo("complete");

    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"test_input_required_result_elicitation\"," + MODERN_META + "}}");
    JsonNode first = await(response(2)).get("result");
    assertThat(first.get("resultType").asString()).isEqualTo("input_required");
    assertThat(first.at("/inputRequests/user_name/method").asString())
        .isEqualTo("elicitation/create");
    String state = first.get("requestState").asString();
    send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"test_input_required_result_elicitation\",\"requestState\":\"" + state + "\","
        + "\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":"
        + "{\"name\":\"Stdio\"}}}," + MODERN_META + "}}");
    assertThat(await(response(3)).get("result").at("/content/0/text").asString())
        .isEqualTo("Hello, Stdio!");
    assertThat(received).noneMatch(method("elicitation/create"));

    // notifications/cancelled is how a stateless request is cancelled on stdio.
    send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"test_sleep\",\"arguments\":{\"ms\":1500}," + MODERN_META + "}}");
    Thread.sleep(200);
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
        + "{\"requestId\":4}}");
    send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{"
        + MODERN_META + "}}");
    assertThat(await(response(5)).get("result").get("tools").size()).isGreaterThan(10);
    // Uncancelled, the sleep would answer after 1.5 s.
    Thread.sleep(2000);
    assertThat(received).as("a cancelled request gets no response").noneMatch(response(4));

    stdin.close();
    assertThat(process.waitFor(15, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(nonProtocolLines).isEmpty();
  }
}
