package dev.keel.mcp.server.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.Annotations;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.TextContent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class ToolResultTreeTest {

  private static final McpJson JSON = McpJson.standard();

  static Stream<CallToolResult> results() {
    ObjectNode structured = JSON.parseObject("{\"rows\":[{\"id\":1,\"name\":\"a\",\"gone\":null},"
        + "{\"id\":9007199254740993,\"price\":1.5,\"ok\":true,\"tags\":[]}],\"nested\":{\"x\":{}}}");
    structured.put("big", new BigInteger("123456789012345678901234567890"));
    structured.put("decimal", new BigDecimal("0.1000"));
    structured.put("float", 2.25f);
    structured.put("text", "quote \" backslash \\ newline \n é \u2028");
    ObjectNode meta = JSON.parseObject("{\"io.example/trace\":\"t-1\",\"n\":null,\"deep\":{\"a\":[1]}}");
    return Stream.of(
        CallToolResult.text("hello, keel"),
        CallToolResult.text(""),
        CallToolResult.error("it failed"),
        new CallToolResult(List.of(), null, null, null),
        new CallToolResult(List.of(Content.text("a"), Content.text("b")), null, false, null),
        new CallToolResult(List.of(new TextContent("with meta", null, meta)), null, null, meta),
        CallToolResult.structured(structured),
        new CallToolResult(List.of(Content.text("[1,2]")), JSON.parse("[1,2,{\"a\":null}]"),
            null, null),
        // shapes left to data binding
        new CallToolResult(List.of(Content.image("AAAA", "image/png")), null, null, null),
        new CallToolResult(List.of(new TextContent("annotated",
            new Annotations(null, 0.5, null), null)), null, null, null),
        new CallToolResult(List.of(Content.text("n")), JsonNodeFactory.instance.nullNode(),
            null, null),
        new CallToolResult(List.of(Content.text("7")), JsonNodeFactory.instance.numberNode(7),
            true, null));
  }

  @ParameterizedTest
  @MethodSource("results")
  void theHandBuiltTreeIsWhatDataBindingMakes(CallToolResult result) {
    JsonNode bound = JSON.toTree(result);
    ObjectNode built = ToolResultTree.of(JSON, result);
    assertThat(built).isEqualTo(bound);
    // the same members in the same order, so the bytes on the wire do not change either
    assertThat(JSON.write(built)).isEqualTo(JSON.write(bound));
  }

  @Test
  void whatTheHandlerReturnedIsCopiedNotShared() {
    ObjectNode meta = JSON.parseObject("{\"k\":\"v\"}");
    ObjectNode blockMeta = JSON.parseObject("{\"b\":1}");
    ObjectNode structured = JSON.parseObject("{\"s\":[1]}");
    CallToolResult result = new CallToolResult(
        List.of(new TextContent("t", null, blockMeta)), structured, null, meta);

    ObjectNode tree = ToolResultTree.of(JSON, result);
    // what the stateless era and a task store do to a result after the handler returned it
    ((ObjectNode) tree.get("_meta")).put("io.modelcontextprotocol/added", true);
    ((ObjectNode) tree.get("content").get(0).get("_meta")).put("b", 2);
    ((ObjectNode) tree.get("structuredContent")).putArray("s").add(2);

    assertThat(JSON.write(meta)).isEqualTo("{\"k\":\"v\"}");
    assertThat(JSON.write(blockMeta)).isEqualTo("{\"b\":1}");
    assertThat(JSON.write(structured)).isEqualTo("{\"s\":[1]}");

    // and a handler changing its nodes afterwards does not change the answer being sent
    meta.put("late", 1);
    structured.removeAll();
    assertThat(tree.get("_meta").has("late")).isFalse();
    assertThat(tree.get("structuredContent").get("s")).isNotNull();
  }
}
