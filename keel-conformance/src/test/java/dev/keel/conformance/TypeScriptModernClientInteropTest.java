package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The official TypeScript SDK v2 client ({@code @modelcontextprotocol/client} 2.4.0, from npm)
 * drives {@code keel fixtures} over real HTTP in the stateless 2026-07-28 era, through its public
 * API only ({@code npm/ts-modern-client.mjs}): a version negotiation pinned to 2026-07-28
 * ({@code server/discover}), {@code tools/list}, multi-round-trip tool calls answered by its
 * registered elicitation handler, progress, and a {@code subscriptions/listen} stream that
 * receives {@code notifications/tools/list_changed}. The client runs once; each test checks one
 * part of what it saw, including the HTTP exchanges it recorded.
 */
class TypeScriptModernClientInteropTest {

  private static final String VERSION = "2026-07-28";
  /** The name the script's elicitation handler answers for {@code user_name}. */
  private static final String ANSWERED_NAME = "ts-v2-user";

  private static String output;
  private static JsonNode seen;

  @BeforeAll
  static void runTheClient() throws Exception {
    NpmTools.ensureInstalled();
    NpmTools.Result run;
    try (KeelProcess keel = KeelProcess.fixtures()) {
      run = NpmTools.run(List.of(NpmTools.bin("node").toString(), "ts-modern-client.mjs",
          keel.url()), NpmTools.DIR, Duration.ofMinutes(2));
    }
    output = run.output();
    assertThat(run.exit()).as(output).isZero();
    String[] lines = output.strip().split("\n");
    seen = McpJson.standard().parse(lines[lines.length - 1]);
    assertThat(seen.path("step").asString()).as(output).isEqualTo("done");
  }

  @Test
  void negotiatesTheModernEraWithServerDiscover() {
    assertThat(seen.path("era").asString()).as(output).isEqualTo("modern");
    assertThat(seen.path("negotiatedProtocolVersion").asString()).isEqualTo(VERSION);
    assertThat(strings(seen.path("supportedVersions"))).as(output).contains(VERSION);
    assertThat(strings(seen.path("connectDiscover").path("supportedVersions"))).contains(VERSION);
    assertThat(seen.path("serverInfo").path("name").asString()).isEqualTo("keel-fixtures");
    assertThat(seen.path("capabilities").path("tools").path("listChanged").asBoolean()).isTrue();
    // Stateless: no session is minted, on any exchange.
    assertThat(seen.path("sessionId").isNull()).isTrue();
    assertThat(wire(w -> true)).allSatisfy(
        w -> assertThat(w.path("responseSessionId").isNull()).as(w.toString()).isTrue());
    List<JsonNode> probes = wire(w -> w.path("method").asString().equals("server/discover"));
    assertThat(probes).hasSize(2).allSatisfy(w -> {
      assertThat(w.path("status").asInt()).as(w.toString()).isEqualTo(200);
      assertThat(w.path("resultType").asString()).isEqualTo("complete");
    });
  }

  @Test
  void listsTheTools() {
    assertThat(strings(seen.path("tools"))).as(output).contains(
        "test_input_required_result_elicitation", "test_input_required_result_multi_round",
        "test_trigger_tool_change", "test_tool_with_progress", "echo")
        .doesNotContain("test_dynamic_tool");
  }

  @Test
  void callsAToolThroughOneMrtrRound() {
    assertThat(seen.path("mrtrText").asString()).as(output)
        .isEqualTo("Hello, " + ANSWERED_NAME + "!");
    JsonNode asked = seen.path("mrtrElicitations");
    assertThat(asked).as(output).hasSize(1);
    assertThat(asked.get(0).path("key").asString()).isEqualTo("user_name");
    assertThat(asked.get(0).path("method").asString()).isEqualTo("elicitation/create");
    assertThat(asked.get(0).path("params").path("message").asString())
        .isEqualTo("What is your name?");
    assertThat(asked.get(0).path("params").path("requestedSchema").path("properties")
        .has("name")).isTrue();

    // On the wire: input_required with user_name and a requestState, then a retry carrying the
    // answer and that requestState, answered complete.
    List<JsonNode> calls = wire(w -> w.path("mcpName").asString()
        .equals("test_input_required_result_elicitation"));
    assertThat(calls).as(output).hasSize(2);
    assertThat(calls.get(0).path("resultType").asString()).isEqualTo("input_required");
    assertThat(strings(calls.get(0).path("inputRequestKeys"))).containsExactly("user_name");
    assertThat(calls.get(0).path("hasRequestState").asBoolean()).isTrue();
    assertThat(strings(calls.get(1).path("inputResponseKeys"))).containsExactly("user_name");
    assertThat(calls.get(1).path("requestState").asString()).isNotBlank();
    assertThat(calls.get(1).path("resultType").asString()).isEqualTo("complete");
    assertThat(calls.get(1).path("id")).isNotEqualTo(calls.get(0).path("id"));
  }

  @Test
  void callsAToolThroughTwoMrtrRounds() {
    assertThat(seen.path("multiRoundText").asString()).as(output)
        .isEqualTo("Multi-round complete for Ada who likes teal");
    List<String> keys = new ArrayList<>();
    seen.path("multiRoundElicitations").forEach(e -> keys.add(e.path("key").asString()));
    assertThat(keys).containsExactly("step1", "step2");
    List<JsonNode> calls = wire(w -> w.path("mcpName").asString()
        .equals("test_input_required_result_multi_round"));
    assertThat(calls).hasSize(3);
    assertThat(calls.get(2).path("resultType").asString()).isEqualTo("complete");
  }

  @Test
  void reportsProgressAndEchoes() {
    JsonNode progress = seen.path("progress");
    assertThat(progress).as(output).hasSize(3);
    assertThat(progress.get(0).path("progress").asDouble()).isEqualTo(0.0);
    assertThat(progress.get(2).path("progress").asDouble()).isEqualTo(100.0);
    assertThat(progress.get(2).path("total").asDouble()).isEqualTo(100.0);
    assertThat(seen.path("echo").asString()).isEqualTo("hello from the v2 client");
  }

  @Test
  void listensAndReceivesTheToolListChangeTaggedWithTheListenId() {
    assertThat(seen.path("honoredFilter").path("toolsListChanged").asBoolean()).as(output)
        .isTrue();
    String listenId = seen.path("listenRequestId").asString();
    assertThat(listenId).as(output).isNotBlank();
    List<JsonNode> listens = wire(w -> w.path("method").asString()
        .equals("subscriptions/listen"));
    assertThat(listens).hasSize(1);
    assertThat(listens.get(0).path("status").asInt()).isEqualTo(200);
    assertThat(listens.get(0).path("contentType").asString()).startsWith("text/event-stream");

    assertThat(seen.path("triggerText").asString()).isEqualTo("tools list change triggered");
    JsonNode changed = seen.path("toolListChangedNotification");
    assertThat(changed.path("method").asString()).as(output)
        .isEqualTo("notifications/tools/list_changed");
    assertThat(seen.path("subscriptionId").asString()).isEqualTo(listenId);
    assertThat(seen.path("toolListChanged")).hasSize(1);
    assertThat(strings(seen.path("toolsAfterChange"))).contains("test_dynamic_tool");
    assertThat(seen.path("subscriptionClosed").asString()).isEqualTo("local");
  }

  @Test
  void everyRequestCarriesTheModernHeadersAndEnvelopeAndSucceeds() {
    List<JsonNode> requests = wire(w -> !w.path("id").isNull());
    // 2 server/discover, 2 tools/list, 2 + 3 MRTR legs, progress, echo, listen, trigger.
    assertThat(requests).as(output).hasSize(13).allSatisfy(w -> {
      String method = w.path("method").asString();
      assertThat(w.path("httpMethod").asString()).as(w.toString()).isEqualTo("POST");
      assertThat(w.path("protocolVersionHeader").asString()).as(w.toString()).isEqualTo(VERSION);
      assertThat(w.path("mcpMethod").asString()).as(w.toString()).isEqualTo(method);
      assertThat(w.path("envelopeVersion").asString()).as(w.toString()).isEqualTo(VERSION);
      assertThat(w.path("envelopeCapabilities").path("elicitation").isObject())
          .as(w.toString()).isTrue();
      assertThat(w.path("status").asInt()).as(w.toString()).isEqualTo(200);
      if (method.equals("tools/call")) {
        assertThat(w.path("mcpName").asString()).as(w.toString()).isNotBlank();
      }
    });
    // The only errors the client may report are refusals of its notification POSTs (see below).
    long refusedNotifications = wire(w -> w.path("id").isNull()
        && w.path("status").asInt() != 202).size();
    assertThat(seen.path("errors").size()).as(output)
        .isLessThanOrEqualTo((int) refusedNotifications);
  }

  /**
   * {@code McpSubscription.close()} aborts the listen stream and, by the SDK's design, also POSTs
   * {@code notifications/cancelled} for the listen id, with {@code MCP-Protocol-Version:
   * 2026-07-28} and the 2026-07-28 {@code _meta} envelope. The spec lets a server refuse a
   * notification POST it cannot accept (an HTTP error), but a server that lists 2026-07-28 in
   * {@code server/discover} must not refuse anything as an unsupported protocol version (-32022)
   * naming 2026-07-28, with a {@code supported} list that leaves it out.
   */
  @Test
  void noExchangeIsRefusedAsAnUnsupportedVersionTheServerDiscovered() {
    List<JsonNode> cancels = wire(w -> w.path("method").asString()
        .equals("notifications/cancelled"));
    assertThat(cancels).as(output).isNotEmpty();
    List<JsonNode> refusedAsUnsupported = wire(w -> w.path("error").path("code").asInt(0)
        == -32022);
    assertThat(refusedAsUnsupported)
        .as("exchanges refused as an unsupported protocol version although server/discover "
            + "lists " + VERSION)
        .isEmpty();
  }

  private static List<JsonNode> wire(Predicate<JsonNode> filter) {
    List<JsonNode> out = new ArrayList<>();
    seen.path("wire").forEach(w -> {
      if (filter.test(w)) {
        out.add(w);
      }
    });
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asString()));
    return out;
  }
}
