package dev.keel.mcp.core.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class JsonRpcCodecTest {

  private final JsonRpcCodec codec = new JsonRpcCodec(McpJson.standard());

  private static JsonRpcCodec codecWith(JsonLimits limits) {
    return new JsonRpcCodec(McpJson.create(limits));
  }

  private InvalidMessageException rejection(JsonRpcCodec c, String text) {
    InvalidMessageException e =
        catchThrowableOfType(InvalidMessageException.class, () -> c.decode(text));
    assertThat(e).as("decoding %s should fail", text).isNotNull();
    return e;
  }

  private InvalidMessageException rejection(String text) {
    return rejection(codec, text);
  }

  /**
   * Found by JsonRpcCodecFuzzTest in the first minute of its long run: a number beyond a
   * double's range, such as {@code 1e400}, became Infinity, which is no JSON value and is
   * written back as the string "Infinity", so a message changed type on its way through. It is
   * refused as out of range.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1e400", "-1e400", "666e665204", "1.5E+309"})
  void aNumberBeyondADoublesRangeIsAParseError(String number) {
    InvalidMessageException e = rejection("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
        + "\"params\":{\"n\":" + number + "}}");
    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).isEqualTo("Parse error: number out of range");
  }

  @Test
  void largeButFiniteNumbersStillDecode() {
    JsonRpcMessage m = codec.decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
        + "\"params\":{\"n\":1.7e308,\"i\":123456789012345678901234567890}}");
    assertThat(((JsonRpcRequest) m).params().get("n").asDouble()).isEqualTo(1.7e308);
  }

  @Test
  void decodesARequestWithItsIdMethodAndParams() {
    JsonRpcMessage message =
        codec.decode("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\","
            + "\"params\":{\"cursor\":\"abc\"}}");

    assertThat(message).isInstanceOf(JsonRpcRequest.class);
    JsonRpcRequest request = (JsonRpcRequest) message;
    assertThat(request.id()).isEqualTo(RequestId.of(7));
    assertThat(request.method()).isEqualTo("tools/list");
    assertThat(request.params().get("cursor").stringValue()).isEqualTo("abc");
  }

  @Test
  void requestWithoutParamsOrWithNullParamsHasNullParams() {
    JsonRpcRequest absent =
        (JsonRpcRequest) codec.decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    JsonRpcRequest explicitNull = (JsonRpcRequest) codec.decode(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":null}");

    assertThat(absent.params()).isNull();
    assertThat(explicitNull.params()).isNull();
  }

  @Test
  void decodesANotificationAsHavingNoId() {
    JsonRpcMessage message = codec.decode(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    assertThat(message).isInstanceOf(JsonRpcNotification.class);
    assertThat(((JsonRpcNotification) message).method()).isEqualTo("notifications/initialized");
    assertThat(message.id()).isNull();
  }

  @Test
  void decodesAResultResponse() {
    JsonRpcMessage message =
        codec.decode("{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{\"answer\":42}}");

    assertThat(message).isInstanceOf(JsonRpcResponse.class);
    JsonRpcResponse response = (JsonRpcResponse) message;
    assertThat(response.id()).isEqualTo(RequestId.of("r-1"));
    assertThat(response.result().get("answer").intValue()).isEqualTo(42);
  }

  @Test
  void decodesAnErrorResponseWithCodeMessageAndData() {
    JsonRpcMessage message = codec.decode("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":"
        + "{\"code\":-32601,\"message\":\"Method not found\",\"data\":{\"m\":\"x\"}}}");

    assertThat(message).isInstanceOf(JsonRpcErrorResponse.class);
    JsonRpcErrorResponse error = (JsonRpcErrorResponse) message;
    assertThat(error.id()).isEqualTo(RequestId.of(3));
    assertThat(error.error().code()).isEqualTo(-32601);
    assertThat(error.error().message()).isEqualTo("Method not found");
    assertThat(error.error().data().get("m").stringValue()).isEqualTo("x");
  }

  @Test
  void errorResponseMayHaveANullId() {
    JsonRpcErrorResponse error = (JsonRpcErrorResponse) codec.decode(
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");

    assertThat(error.id()).isNull();
    assertThat(error.error().code()).isEqualTo(-32700);
    assertThat(error.error().data()).isNull();
  }

  @Test
  void stringAndNumericIdsWithTheSameDigitsAreDistinct() {
    RequestId numeric = codec.decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").id();
    RequestId text = codec.decode("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"ping\"}").id();

    assertThat(numeric.isNumber()).isTrue();
    assertThat(text.isNumber()).isFalse();
    assertThat(numeric).isNotEqualTo(text);
    assertThat(numeric.value()).isEqualTo(1L);
    assertThat(text.value()).isEqualTo("1");
  }

  @Test
  void inv38_batchArrayIsRejectedWithInvalidRequest() {
    InvalidMessageException e = rejection(
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.getMessage()).contains("batch");
    assertThat(e.requestId()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"hello\"", "42", "true", "null"})
  void nonObjectJsonIsAnInvalidRequest(String text) {
    InvalidMessageException e = rejection(text);

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"id\":1,\"method\":\"ping\"}",
      "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
      "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}",
      "{\"jsonrpc\":null,\"id\":1,\"method\":\"ping\"}"})
  void missingOrWrongJsonrpcMemberIsAnInvalidRequestNamingTheId(String text) {
    InvalidMessageException e = rejection(text);

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.getMessage()).contains("jsonrpc");
    assertThat(e.requestId()).isEqualTo(RequestId.of(1));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.5", "true", "null", "{}", "[1]", "1e3"})
  void requestIdThatIsNotAStringOrIntegerIsAnInvalidRequest(String id) {
    InvalidMessageException e =
        rejection("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.getMessage()).contains("id must be a string or an integer");
    assertThat(e.requestId()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"[1,2]", "\"text\"", "5", "true"})
  void paramsThatAreNotAnObjectAreAnInvalidRequestCarryingTheId(String params) {
    InvalidMessageException e = rejection(
        "{\"jsonrpc\":\"2.0\",\"id\":\"req-9\",\"method\":\"tools/call\",\"params\":" + params
            + "}");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.getMessage()).contains("params must be an object");
    assertThat(e.requestId()).isEqualTo(RequestId.of("req-9"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}"})
  void emptyOrNonStringMethodIsAnInvalidRequest(String text) {
    InvalidMessageException e = rejection(text);

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.requestId()).isEqualTo(RequestId.of(1));
  }

  @Test
  void messageWithBothResultAndErrorIsAnInvalidRequest() {
    InvalidMessageException e = rejection("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{},"
        + "\"error\":{\"code\":1,\"message\":\"m\"}}");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.requestId()).isEqualTo(RequestId.of(4));
  }

  @Test
  void messageWithNeitherMethodNorResultNorErrorIsAnInvalidRequest() {
    InvalidMessageException e = rejection("{\"jsonrpc\":\"2.0\",\"id\":4}");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.requestId()).isEqualTo(RequestId.of(4));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":1.5,\"message\":\"m\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":1}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"message\":\"m\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":\"broken\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":null}"})
  void malformedErrorMemberIsAnInvalidRequest(String text) {
    InvalidMessageException e = rejection(text);

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(e.requestId()).isEqualTo(RequestId.of(5));
  }

  @Test
  void resultWithoutAnIdIsAnInvalidRequest() {
    InvalidMessageException e = rejection("{\"jsonrpc\":\"2.0\",\"result\":{}}");

    assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"jsonrpc\":\"2.0\",", "not json", "{\"a\":1,}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"x\"} {}"})
  void invalidJsonIsAParseError(String text) {
    InvalidMessageException e = rejection(text);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.requestId()).isNull();
  }

  @Test
  void inv39_nestingDeeperThanLimitIsAParseError() {
    JsonRpcCodec shallow = codecWith(JsonLimits.defaults().withMaxDepth(5));
    String deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
        + "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{}}}}}}}";

    InvalidMessageException e = rejection(shallow, deep);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).contains("nesting");
  }

  @Test
  void inv39_nestingAtTheLimitIsAccepted() {
    JsonRpcCodec shallow = codecWith(JsonLimits.defaults().withMaxDepth(5));
    String atLimit = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":"
        + "{\"a\":{\"b\":{\"c\":{\"d\":1}}}}}";

    JsonRpcRequest request = (JsonRpcRequest) shallow.decode(atLimit);

    assertThat(request.params().at("/a/b/c/d").intValue()).isEqualTo(1);
  }

  @Test
  void inv39_defaultDepthLimitRejectsDeeplyNestedArrays() {
    String deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":"
        + "[".repeat(200) + "]".repeat(200) + "}}";

    InvalidMessageException e = rejection(deep);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).contains("nesting");
  }

  @Test
  void inv39_messageOverLimitIsAParseError() {
    JsonRpcCodec small = codecWith(JsonLimits.defaults().withMaxBytes(100));
    String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"pad\":\""
        + "x".repeat(100) + "\"}}";

    InvalidMessageException e = rejection(small, big);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).contains("too large");
    assertThat(e.requestId()).isNull();
  }

  @Test
  void inv39_messageAtTheByteLimitIsAccepted() {
    String text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}";
    JsonRpcCodec exact = codecWith(JsonLimits.defaults()
        .withMaxBytes(text.getBytes(StandardCharsets.UTF_8).length));

    assertThat(exact.decode(text)).isEqualTo(new JsonRpcRequest(RequestId.of(1), "m", null));
  }

  @Test
  void byteLimitCountsUtf8BytesNotCharacters() {
    // 30 "é" are 30 characters but 60 bytes.
    String text = "{\"jsonrpc\":\"2.0\",\"method\":\"" + "é".repeat(30) + "\"}";
    int chars = text.length();
    JsonRpcCodec c = codecWith(JsonLimits.defaults().withMaxBytes(chars + 5));

    InvalidMessageException e = rejection(c, text);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
  }

  @Test
  void stringLongerThanMaxStringLengthIsAParseError() {
    JsonRpcCodec c = codecWith(new JsonLimits(1 << 20, 64, 1000));
    String text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"s\":\""
        + "y".repeat(5000) + "\"}}";

    InvalidMessageException e = rejection(c, text);

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).contains("string too long");
  }

  @Test
  void invalidMessageExceptionCarriesTheRequestIdWhenItCanBeRead() {
    InvalidMessageException e = rejection(
        "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"m\",\"params\":[]}");

    assertThat(e.requestId()).isEqualTo(RequestId.of("abc"));
    assertThat(e.toError().code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
  }

  @Test
  void parseErrorMessageNeverQuotesTheInput() {
    String secret = "SECRET-token-0123456789";
    InvalidMessageException e = rejection(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + secret + "\" \"oops\": ]");

    assertThat(e.code()).isEqualTo(ErrorCodes.PARSE_ERROR);
    assertThat(e.getMessage()).doesNotContain(secret).doesNotContain("oops");
  }

  @Test
  void invalidRequestMessageNeverQuotesTheInput() {
    String secret = "SECRET-version-0123456789";
    InvalidMessageException wrongVersion = rejection(
        "{\"jsonrpc\":\"" + secret + "\",\"id\":1,\"method\":\"m\"}");
    InvalidMessageException wrongParams = rejection(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":\"" + secret + "\"}");

    assertThat(wrongVersion.getMessage()).doesNotContain(secret);
    assertThat(wrongParams.getMessage()).doesNotContain(secret);
  }

  @Test
  void limitErrorMessageNeverQuotesTheInput() {
    String secret = "SECRET-long-" + "z".repeat(2000);
    JsonRpcCodec c = codecWith(new JsonLimits(1 << 20, 64, 1000));

    InvalidMessageException e = rejection(c,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"s\":\"" + secret + "\"}}");

    assertThat(e.getMessage()).doesNotContain("SECRET");
  }

  @Test
  void encodeThenDecodeRoundTripsEveryKindOfMessage() {
    ObjectNode params = JsonNodeFactory.instance.objectNode();
    params.put("name", "echo");
    params.putObject("arguments").put("text", "hi");
    ObjectNode data = JsonNodeFactory.instance.objectNode().put("uri", "file:///x");
    JsonRpcMessage[] messages = {
        new JsonRpcRequest(RequestId.of(12), "tools/call", params),
        new JsonRpcRequest(RequestId.of("s-1"), "ping", null),
        new JsonRpcNotification("notifications/progress", params),
        new JsonRpcNotification("notifications/initialized", null),
        new JsonRpcResponse(RequestId.of("s-2"), JsonNodeFactory.instance.objectNode()
            .put("ok", true)),
        new JsonRpcErrorResponse(RequestId.of(99), new JsonRpcError(-32002, "not found", data)),
        new JsonRpcErrorResponse(null, new JsonRpcError(-32700, "Parse error", null))};

    for (JsonRpcMessage message : messages) {
      assertThat(codec.decode(codec.encode(message))).isEqualTo(message);
      assertThat(codec.decode(codec.encodeToString(message))).isEqualTo(message);
    }
  }

  @Test
  void encodedRequestHasTheWireShape() {
    String text = codec.encodeToString(new JsonRpcRequest(RequestId.of("a"), "ping", null));

    assertThat(text).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}");
  }

  @Test
  void encodedErrorWithUnknownIdCarriesAnExplicitNullId() {
    String text = codec.encodeToString(
        new JsonRpcErrorResponse(null, new JsonRpcError(-32700, "Parse error", null)));

    assertThat(text).isEqualTo(
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
  }

  @Test
  void encodedOutputContainsNoNewlineEvenWhenValuesDo() {
    ObjectNode params = JsonNodeFactory.instance.objectNode();
    params.put("text", "line one\nline two\r\nline three\u2028");
    byte[] bytes = codec.encode(new JsonRpcNotification("notifications/message", params));

    assertThat(bytes).doesNotContain((byte) '\n').doesNotContain((byte) '\r');
    JsonRpcNotification back = (JsonRpcNotification) codec.decode(bytes);
    assertThat(back.params().get("text").stringValue())
        .isEqualTo("line one\nline two\r\nline three\u2028");
  }

  @Test
  void unknownTopLevelMembersAreIgnored() {
    JsonRpcMessage message = codec.decode(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"extension\":{\"x\":1}}");

    assertThat(message).isEqualTo(new JsonRpcRequest(RequestId.of(1), "ping", null));
  }

  @Test
  void limitsRejectNonPositiveValues() {
    assertThatThrownBy(() -> new JsonLimits(0, 64, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBytes");
    assertThatThrownBy(() -> new JsonLimits(10, 0, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDepth");
    assertThatThrownBy(() -> new JsonLimits(10, 64, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxStringLength");
  }

  @Test
  void withMaxBytesAlsoCapsTheStringLength() {
    JsonLimits limits = JsonLimits.defaults().withMaxBytes(1000);

    assertThat(limits.maxBytes()).isEqualTo(1000);
    assertThat(limits.maxStringLength()).isEqualTo(1000);
    assertThat(limits.maxDepth()).isEqualTo(JsonLimits.DEFAULT_MAX_DEPTH);
  }

  @Test
  void aFrozenResultIsEncodedExactlyAsAnyOther() {
    JsonRpcCodec fresh = new JsonRpcCodec(McpJson.standard());
    tools.jackson.databind.node.ObjectNode result = McpJson.standard().parseObject(
        "{\"protocolVersion\":\"2025-11-25\",\"serverInfo\":{\"name\":\"k\u00e9el \\\"q\\\"\","
            + "\"version\":\"1\"},\"capabilities\":{\"tools\":{\"listChanged\":true}},"
            + "\"n\":[1,2.5,null,true]}");
    RequestId[] ids = {RequestId.of(7), RequestId.of(-3), RequestId.of(Long.MAX_VALUE),
        RequestId.of("a\"b\\c\u00e9\n"), RequestId.of("")};
    java.util.List<byte[]> before = new java.util.ArrayList<>();
    for (RequestId id : ids) {
      before.add(fresh.encode(new JsonRpcResponse(id, result)));
    }
    fresh.freeze(result);
    for (int i = 0; i < ids.length; i++) {
      assertThat(new String(fresh.encode(new JsonRpcResponse(ids[i], result)),
          java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo(new String(before.get(i), java.nio.charset.StandardCharsets.UTF_8));
      assertThat(fresh.decode(fresh.encode(new JsonRpcResponse(ids[i], result))))
          .isEqualTo(new JsonRpcResponse(ids[i], result));
    }
  }

  @Test
  void onlyTheFrozenNodeItselfIsSplicedAndThatNodeMustNotChange() {
    JsonRpcCodec fresh = new JsonRpcCodec(McpJson.standard());
    tools.jackson.databind.node.ObjectNode frozen = McpJson.standard().parseObject("{\"a\":1}");
    tools.jackson.databind.node.ObjectNode equal = frozen.deepCopy();
    fresh.freeze(frozen);
    // its bytes were made at freeze: a later change (which the contract forbids) is not seen,
    // which is how this test knows the frozen bytes are the ones used
    frozen.put("a", 2);
    assertThat(new String(fresh.encode(new JsonRpcResponse(RequestId.of(1), frozen)),
        java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}}");
    equal.put("a", 3);
    assertThat(new String(fresh.encode(new JsonRpcResponse(RequestId.of(1), equal)),
        java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":3}}");
  }

  @Test
  void freezingIsBounded() {
    JsonRpcCodec fresh = new JsonRpcCodec(McpJson.standard());
    java.util.List<tools.jackson.databind.node.ObjectNode> nodes = new java.util.ArrayList<>();
    for (int i = 0; i < JsonRpcCodec.MAX_FROZEN + 5; i++) {
      tools.jackson.databind.node.ObjectNode node = McpJson.object().put("i", i);
      nodes.add(node);
      fresh.freeze(node);
    }
    // past the bound a node is encoded as it is now
    tools.jackson.databind.node.ObjectNode last = nodes.get(nodes.size() - 1);
    last.put("i", -1);
    assertThat(new String(fresh.encode(new JsonRpcResponse(RequestId.of(1), last)),
        java.nio.charset.StandardCharsets.UTF_8)).contains("\"i\":-1");
    tools.jackson.databind.node.ObjectNode first = nodes.get(0);
    first.put("i", -1);
    assertThat(new String(fresh.encode(new JsonRpcResponse(RequestId.of(1), first)),
        java.nio.charset.StandardCharsets.UTF_8)).contains("\"i\":0");
  }

}
