package dev.keel.mcp.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.keel.mcp.core.jsonrpc.JsonLimits;
import dev.keel.mcp.core.schema.AudioContent;
import dev.keel.mcp.core.schema.BlobResourceContents;
import dev.keel.mcp.core.schema.CallToolRequest;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.EmbeddedResource;
import dev.keel.mcp.core.schema.ImageContent;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.LoggingMessage;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceLink;
import dev.keel.mcp.core.schema.Role;
import dev.keel.mcp.core.schema.SamplingMessage;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** McpJson itself and the schema records it binds. */
class McpJsonTest {

  private final McpJson json = McpJson.standard();

  private <T> T read(String text, Class<T> type) {
    return json.fromTree(json.parse(text), type);
  }

  @Test
  void textContentReadsByTypeAndWritesItsType() {
    Content content = read("{\"type\":\"text\",\"text\":\"hello\"}", Content.class);

    assertThat(content).isEqualTo(new TextContent("hello", null, null));
    assertThat(json.write(content)).isEqualTo("{\"type\":\"text\",\"text\":\"hello\"}");
  }

  @Test
  void imageAndAudioContentReadByType() {
    Content image = read("{\"type\":\"image\",\"data\":\"aGk=\",\"mimeType\":\"image/png\"}",
        Content.class);
    Content audio = read("{\"type\":\"audio\",\"data\":\"AAA=\",\"mimeType\":\"audio/wav\"}",
        Content.class);

    assertThat(image).isEqualTo(new ImageContent("aGk=", "image/png", null, null));
    assertThat(audio).isEqualTo(new AudioContent("AAA=", "audio/wav", null, null));
    assertThat(json.toTree(image).get("type").stringValue()).isEqualTo("image");
    assertThat(json.toTree(audio).get("type").stringValue()).isEqualTo("audio");
  }

  @Test
  void resourceLinkReadsByTypeWithItsOptionalMembers() {
    Content link = read("{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a\","
        + "\"mimeType\":\"text/plain\",\"size\":12}", Content.class);

    assertThat(link).isEqualTo(new ResourceLink("file:///a.txt", "a", null, null, "text/plain",
        12L, null, null, null));
    JsonNode tree = json.toTree(link);
    assertThat(tree.get("type").stringValue()).isEqualTo("resource_link");
    assertThat(tree.get("size").longValue()).isEqualTo(12L);
  }

  @Test
  void embeddedResourceWithTextContentsDeducesTextResourceContents() {
    Content content = read("{\"type\":\"resource\",\"resource\":"
        + "{\"uri\":\"file:///a.txt\",\"mimeType\":\"text/plain\",\"text\":\"body\"}}",
        Content.class);

    assertThat(content).isInstanceOf(EmbeddedResource.class);
    ResourceContents contents = ((EmbeddedResource) content).resource();
    assertThat(contents)
        .isEqualTo(new TextResourceContents("file:///a.txt", "text/plain", "body", null));
  }

  @Test
  void embeddedResourceWithBlobContentsDeducesBlobResourceContents() {
    Content content = read("{\"type\":\"resource\",\"resource\":"
        + "{\"uri\":\"file:///a.bin\",\"blob\":\"AQID\"}}", Content.class);

    ResourceContents contents = ((EmbeddedResource) content).resource();
    assertThat(contents).isEqualTo(new BlobResourceContents("file:///a.bin", null, "AQID", null));
  }

  @Test
  void embeddedResourceWritesTypeAndContentsWithoutATypeMember() {
    JsonNode tree =
        json.toTree(Content.resource(ResourceContents.blob("file:///b", "x/y", "AA==")));

    assertThat(tree.get("type").stringValue()).isEqualTo("resource");
    assertThat(tree.get("resource").get("blob").stringValue()).isEqualTo("AA==");
    assertThat(tree.get("resource").has("type")).isFalse();
    assertThat(tree.get("resource").has("text")).isFalse();
  }

  @Test
  void readResourceResultRoundTripsMixedContents() {
    ReadResourceResult result = ReadResourceResult.of(
        ResourceContents.text("file:///a", "text/plain", "abc"),
        ResourceContents.blob("file:///b", "image/png", "iVBO"));

    ReadResourceResult back = json.fromTree(json.toTree(result), ReadResourceResult.class);

    assertThat(back).isEqualTo(result);
  }

  @Test
  void unknownContentTypeIsInvalidParams() {
    McpException e = catchThrowableOfType(McpException.class,
        () -> read("{\"type\":\"hologram\",\"text\":\"x\"}", Content.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).doesNotContain("hologram");
  }

  @Test
  void metaIsPreservedThroughReadAndWrite() {
    TextContent content = (TextContent) read(
        "{\"type\":\"text\",\"text\":\"hi\",\"_meta\":{\"trace\":\"t-1\",\"n\":2}}", Content.class);

    assertThat(content.meta().get("trace").stringValue()).isEqualTo("t-1");
    JsonNode written = json.toTree(content);
    assertThat(written.get("_meta").get("trace").stringValue()).isEqualTo("t-1");
    assertThat(written.get("_meta").get("n").intValue()).isEqualTo(2);
    assertThat(written.has("meta")).isFalse();
  }

  @Test
  void metaOnResourceContentsSurvivesDeduction() {
    ResourceContents contents = read(
        "{\"uri\":\"u:1\",\"text\":\"t\",\"_meta\":{\"k\":\"v\"}}", ResourceContents.class);

    assertThat(contents).isInstanceOf(TextResourceContents.class);
    assertThat(contents.meta().get("k").stringValue()).isEqualTo("v");
    assertThat(json.toTree(contents).get("_meta").get("k").stringValue()).isEqualTo("v");
  }

  @Test
  void unknownFieldsAreIgnored() {
    Content content = read("{\"type\":\"text\",\"text\":\"hi\",\"futureField\":{\"a\":1},"
        + "\"other\":[1,2]}", Content.class);
    CallToolRequest call = read(
        "{\"name\":\"echo\",\"arguments\":{},\"somethingNew\":true}", CallToolRequest.class);

    assertThat(content).isEqualTo(new TextContent("hi", null, null));
    assertThat(call.name()).isEqualTo("echo");
  }

  @Test
  void unknownFieldsAreIgnoredInDeducedResourceContents() {
    ResourceContents contents = read(
        "{\"uri\":\"u:1\",\"blob\":\"AA==\",\"encodingHint\":\"base64\"}", ResourceContents.class);

    assertThat(contents).isEqualTo(new BlobResourceContents("u:1", null, "AA==", null));
  }

  @Test
  void nullFieldsAreOmittedOnWrite() {
    String text = json.write(CallToolResult.text("done"));
    JsonNode tool = json.toTree(Tool.builder("t").build());

    assertThat(text).isEqualTo("{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
    assertThat(tool.propertyNames()).containsExactly("name", "inputSchema");
  }

  @Test
  void samplingMessageContentAcceptsASingleObject() {
    SamplingMessage message = read(
        "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}",
        SamplingMessage.class);

    assertThat(message.role()).isEqualTo(Role.USER);
    assertThat(message.content()).containsExactly(new TextContent("hi", null, null));
  }

  @Test
  void samplingMessageContentAcceptsAnArray() {
    SamplingMessage message = read("{\"role\":\"assistant\",\"content\":["
        + "{\"type\":\"text\",\"text\":\"a\"},"
        + "{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"}]}",
        SamplingMessage.class);

    assertThat(message.role()).isEqualTo(Role.ASSISTANT);
    assertThat(message.content()).containsExactly(new TextContent("a", null, null),
        new ImageContent("AA==", "image/png", null, null));
  }

  @Test
  void samplingMessageWritesASingleBlockAsAnObjectAndSeveralAsAnArray() {
    JsonNode single = json.toTree(SamplingMessage.user("hi"));
    JsonNode several = json.toTree(new SamplingMessage(Role.USER,
        List.of(Content.text("a"), Content.text("b")), null));

    assertThat(single.get("content").isObject()).isTrue();
    assertThat(single.get("content").get("text").stringValue()).isEqualTo("hi");
    assertThat(single.get("role").stringValue()).isEqualTo("user");
    assertThat(several.get("content").isArray()).isTrue();
    assertThat(several.get("content").size()).isEqualTo(2);
  }

  @Test
  void createMessageResultAcceptsSingleOrArrayContentAndFindsItsText() {
    CreateMessageResult single = read("{\"role\":\"assistant\",\"model\":\"m1\","
        + "\"stopReason\":\"endTurn\",\"content\":{\"type\":\"text\",\"text\":\"answer\"}}",
        CreateMessageResult.class);
    CreateMessageResult array = read("{\"role\":\"assistant\",\"model\":\"m1\",\"content\":["
        + "{\"type\":\"audio\",\"data\":\"AA==\",\"mimeType\":\"audio/wav\"},"
        + "{\"type\":\"text\",\"text\":\"second\"}]}", CreateMessageResult.class);

    assertThat(single.text()).isEqualTo("answer");
    assertThat(single.stopReason()).isEqualTo("endTurn");
    assertThat(array.content()).hasSize(2);
    assertThat(array.text()).isEqualTo("second");
    assertThat(json.toTree(single).get("content").isObject()).isTrue();
  }

  @Test
  void elicitResultReadsAndWritesItsActionInLowerCase() {
    ElicitResult accepted = read("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}",
        ElicitResult.class);
    ElicitResult declined = new ElicitResult(ElicitResult.Action.DECLINE, null, null);

    assertThat(accepted.action()).isEqualTo(ElicitResult.Action.ACCEPT);
    assertThat(accepted.accepted()).isTrue();
    assertThat(accepted.content().get("name").stringValue()).isEqualTo("Ada");
    assertThat(json.write(declined)).isEqualTo("{\"action\":\"decline\"}");
    assertThat(read("{\"action\":\"cancel\"}", ElicitResult.class).action())
        .isEqualTo(ElicitResult.Action.CANCEL);
  }

  @Test
  void elicitResultWithUnknownActionIsInvalidParams() {
    McpException e = catchThrowableOfType(McpException.class,
        () -> read("{\"action\":\"ACCEPT\"}", ElicitResult.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).startsWith("Invalid params");
  }

  @ParameterizedTest
  @EnumSource(LoggingLevel.class)
  void loggingLevelRoundTripsThroughItsLowerCaseWireName(LoggingLevel level) {
    JsonNode tree = json.toTree(level);

    assertThat(tree.stringValue()).isEqualTo(level.name().toLowerCase(java.util.Locale.ROOT));
    assertThat(LoggingLevel.fromWire(level.wireName())).isEqualTo(level);
    assertThat(json.fromTree(tree, LoggingLevel.class)).isEqualTo(level);
  }

  @Test
  void loggingLevelWireNamesMatchTheSpecification() {
    assertThat(LoggingLevel.values()).extracting(LoggingLevel::wireName).containsExactly(
        "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");
  }

  @Test
  void loggingLevelRejectsUpperCaseAndUnknownNames() {
    assertThatThrownBy(() -> LoggingLevel.fromWire("WARNING"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LoggingLevel.fromWire("verbose"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LoggingLevel.fromWire(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void loggingLevelAtLeastComparesBySeverity() {
    assertThat(LoggingLevel.ERROR.atLeast(LoggingLevel.WARNING)).isTrue();
    assertThat(LoggingLevel.WARNING.atLeast(LoggingLevel.WARNING)).isTrue();
    assertThat(LoggingLevel.INFO.atLeast(LoggingLevel.WARNING)).isFalse();
    assertThat(LoggingLevel.EMERGENCY.atLeast(LoggingLevel.DEBUG)).isTrue();
    assertThat(LoggingLevel.DEBUG.atLeast(LoggingLevel.INFO)).isFalse();
  }

  @Test
  void fromTreeErrorNamesTheFieldButNotTheValue() {
    String secret = "SECRET-level-4242";

    McpException e = catchThrowableOfType(McpException.class, () -> read(
        "{\"level\":\"" + secret + "\",\"data\":\"x\"}", LoggingMessage.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).isEqualTo("Invalid params: level");
  }

  @Test
  void fromTreeErrorNamesANestedPathWithIndexes() {
    String secret = "SECRET-role-777";

    McpException e = catchThrowableOfType(McpException.class, () -> read(
        "{\"maxTokens\":10,\"messages\":[{\"role\":\"user\",\"content\":[]},"
            + "{\"role\":\"" + secret + "\",\"content\":[]}]}", CreateMessageRequest.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).isEqualTo("Invalid params: messages[1].role");
  }

  @Test
  void fromTreeTypeMismatchNamesTheFieldButNotTheValue() {
    String secret = "SECRET-object-value";

    McpException e = catchThrowableOfType(McpException.class, () -> read(
        "{\"name\":{\"" + secret + "\":1}}", CallToolRequest.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).contains("name").doesNotContain(secret);
  }

  @Test
  void fromTreeMissingRequiredMemberIsInvalidParams() {
    McpException e = catchThrowableOfType(McpException.class,
        () -> read("{\"arguments\":{}}", CallToolRequest.class));

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(e.getMessage()).startsWith("Invalid params");
  }

  @Test
  void fromTreeOfNullReadsAnEmptyObject() {
    McpException e = catchThrowableOfType(McpException.class,
        () -> json.fromTree(null, ElicitResult.class));
    ReadResourceResult empty = json.fromTree(null, ReadResourceResult.class);

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(empty.contents()).isEmpty();
  }

  @Test
  void parseObjectRejectsNonObjectsAndInvalidJson() {
    assertThat(json.parseObject("{\"a\":1}").get("a").intValue()).isEqualTo(1);
    assertThatThrownBy(() -> json.parseObject("[1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected a JSON object");
    assertThatThrownBy(() -> json.parse("{\"a\":"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("invalid JSON");
  }

  @Test
  void toObjectRejectsValuesThatAreNotObjects() {
    ObjectNode object = json.toObject(CallToolResult.text("x"));

    assertThat(object.get("content").size()).isEqualTo(1);
    assertThatThrownBy(() -> json.toObject("just a string"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void createdMapperEnforcesItsOwnLimits() {
    McpJson shallow = McpJson.create(JsonLimits.defaults().withMaxDepth(2));

    assertThat(shallow.limits().maxDepth()).isEqualTo(2);
    assertThat(shallow.parse("{\"a\":{\"b\":1}}").at("/a/b").intValue()).isEqualTo(1);
    assertThatThrownBy(() -> shallow.parse("{\"a\":{\"b\":{\"c\":1}}}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(McpJson.standard().limits()).isEqualTo(JsonLimits.defaults());
  }

  @Test
  void theDefaultLimitsShareOneMapperAndOthersGetTheirOwn() {
    assertThat(McpJson.create(JsonLimits.defaults())).isSameAs(McpJson.standard());
    McpJson own = McpJson.create(JsonLimits.defaults().withMaxDepth(2));
    assertThat(own).isNotSameAs(McpJson.standard());
    assertThat(McpJson.create(JsonLimits.defaults().withMaxDepth(2))).isNotSameAs(own);
    // the shared one still enforces the default limits on what a peer sends
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i <= JsonLimits.defaults().maxDepth(); i++) {
      deep.append('[');
    }
    assertThatThrownBy(() -> McpJson.create(JsonLimits.defaults())
        .readPeerTree(deep.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .isInstanceOf(tools.jackson.core.JacksonException.class);
  }

}
