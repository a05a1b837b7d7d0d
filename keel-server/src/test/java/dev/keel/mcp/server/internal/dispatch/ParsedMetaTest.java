package dev.keel.mcp.server.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.Implementation;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ParsedMetaTest {

  private static final McpJson JSON = McpJson.standard();

  @Test
  void anEqualObjectIsBoundOnceAndAChangedOneAgain() {
    ObjectNode caps = JSON.parseObject("{\"elicitation\":{\"form\":{}},\"x-test\":\"a1\"}");
    ClientCapabilities first = ParsedMeta.bind(JSON, caps, ClientCapabilities.class);
    ClientCapabilities again = ParsedMeta.bind(JSON,
        JSON.parseObject("{\"elicitation\":{\"form\":{}},\"x-test\":\"a1\"}"),
        ClientCapabilities.class);
    assertThat(again).isSameAs(first);
    assertThat(first.elicitation()).isNotNull();

    // The caller's tree changing afterwards changes neither the key nor the bound value.
    caps.remove("elicitation");
    ClientCapabilities changed = ParsedMeta.bind(JSON, caps, ClientCapabilities.class);
    assertThat(changed.elicitation()).isNull();
    assertThat(ParsedMeta.bind(JSON,
        JSON.parseObject("{\"elicitation\":{\"form\":{}},\"x-test\":\"a1\"}"),
        ClientCapabilities.class).elicitation()).isNotNull();
  }

  @Test
  void theSameTreeUnderTwoTypesIsTwoEntries() {
    ObjectNode node = JSON.parseObject("{\"name\":\"n-types\",\"version\":\"1\"}");
    Implementation info = ParsedMeta.bind(JSON, node, Implementation.class);
    ClientCapabilities caps = ParsedMeta.bind(JSON, node, ClientCapabilities.class);
    assertThat(info.name()).isEqualTo("n-types");
    assertThat(caps.elicitation()).isNull();
  }

  @Test
  void aMalformedValueFailsEveryTimeAndIsNeverKept() {
    ObjectNode bad = JSON.parseObject("{\"elicitation\":\"not an object\"}");
    assertThatThrownBy(() -> ParsedMeta.bind(JSON, bad, ClientCapabilities.class))
        .isInstanceOf(McpException.class);
    assertThatThrownBy(() -> ParsedMeta.bind(JSON, bad, ClientCapabilities.class))
        .isInstanceOf(McpException.class);
  }

  @Test
  void aPeerSendingNewObjectsForeverDoesNotGrowTheTable() {
    for (int i = 0; i < 5 * ParsedMeta.MAX_ENTRIES; i++) {
      ParsedMeta.bind(JSON, JSON.parseObject("{\"name\":\"c" + i + "\",\"version\":\"1\"}"),
          Implementation.class);
      assertThat(ParsedMeta.size()).isLessThanOrEqualTo(ParsedMeta.MAX_ENTRIES);
    }
  }

  @Test
  void aLargeValueIsBoundButNeverKept() {
    // What broke: every distinct value was kept as a deep copy, so a peer sending 256 requests
    // whose clientCapabilities (or initialize params) were megabytes each left gigabytes in
    // the table for the life of the process. Kept, a value binds to the same record twice.
    ObjectNode big = JSON.parseObject("{\"elicitation\":{\"form\":{}}}");
    big.putObject("experimental").put("x-pad", "p".repeat(ParsedMeta.MAX_KEPT_WEIGHT));
    ClientCapabilities bound = ParsedMeta.bind(JSON, big, ClientCapabilities.class);
    assertThat(bound.elicitation()).isNotNull();
    assertThat(ParsedMeta.bind(JSON, big, ClientCapabilities.class)).isNotSameAs(bound);

    ObjectNode wide = JSON.parseObject("{}");
    ObjectNode experimental = wide.putObject("experimental");
    for (int i = 0; i < ParsedMeta.MAX_KEPT_WEIGHT; i++) {
      experimental.put("k" + i, i);
    }
    assertThat(ParsedMeta.bind(JSON, wide, ClientCapabilities.class))
        .isNotSameAs(ParsedMeta.bind(JSON, wide, ClientCapabilities.class));

    ObjectNode small = JSON.parseObject("{\"experimental\":{\"x-pad\":\"small\"}}");
    assertThat(ParsedMeta.bind(JSON, small, ClientCapabilities.class))
        .isSameAs(ParsedMeta.bind(JSON, small, ClientCapabilities.class));
  }

  @Test
  void weightCountsNodesNamesAndStringsAndStopsAtTheBound() {
    assertThat(ParsedMeta.light(JSON.parse("{\"a\":[1,2,{\"b\":\"c\"}]}"))).isTrue();
    assertThat(ParsedMeta.light(JSON.parse(
        "[\"" + "s".repeat(ParsedMeta.MAX_KEPT_WEIGHT) + "\"]"))).isFalse();
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      deep.append("[");
    }
    for (int i = 0; i < 60; i++) {
      deep.append("]");
    }
    assertThat(ParsedMeta.light(JSON.parse(deep.toString()))).isTrue();
  }

  @Test
  void serverInfoIsWrittenOncePerServer() {
    Implementation a = new Implementation("srv-a", null, "1", null, null, null);
    assertThat(ParsedMeta.serverInfo(JSON, a)).isSameAs(ParsedMeta.serverInfo(JSON, a));
    assertThat(ParsedMeta.serverInfo(JSON, a).get("name").asString()).isEqualTo("srv-a");
    Implementation b = new Implementation("srv-b", null, "1", null, null, null);
    assertThat(ParsedMeta.serverInfo(JSON, b).get("name").asString()).isEqualTo("srv-b");
  }
}
