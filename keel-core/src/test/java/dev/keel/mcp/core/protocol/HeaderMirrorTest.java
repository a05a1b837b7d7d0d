package dev.keel.mcp.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * One implementation of the mirrored headers for both sides: what the client writes, the server
 * accepts, and any change to a header or the body is a mismatch.
 */
class HeaderMirrorTest {

  static final ObjectNode SCHEMA = (ObjectNode) McpJson.standard().parse("{\"type\":\"object\","
      + "\"properties\":{\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
      + "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
      + "\"deep\":{\"type\":\"object\",\"properties\":{\"flag\":{\"type\":\"boolean\","
      + "\"x-mcp-header\":\"Flag\"}}}}}");

  static JsonRpcRequest call(String arguments) {
    ObjectNode params = McpJson.object();
    params.put("name", "wétter tool");
    params.set("arguments", McpJson.standard().parse(arguments));
    return new JsonRpcRequest(RequestId.of(1), "tools/call", params);
  }

  static Map<String, String> caseInsensitive(Map<String, String> headers) {
    Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    map.putAll(headers);
    return map;
  }

  @Test
  void whatTheClientWritesTheServerAccepts() {
    JsonRpcRequest request = call("{\"region\":\"eu west\",\"n\":7,\"deep\":{\"flag\":true}}");
    Map<String, String> headers = HeaderMirror.headers(request, SCHEMA);
    assertThat(headers).containsEntry("Mcp-Method", "tools/call")
        .containsEntry("Mcp-Param-Region", "eu west").containsEntry("Mcp-Param-N", "7")
        .containsEntry("Mcp-Param-Flag", "true");
    assertThat(headers.get("Mcp-Name")).startsWith("=?base64?");
    Map<String, String> received = caseInsensitive(headers);
    assertThat(HeaderMirror.mismatch(received::get, request, SCHEMA)).isEmpty();
  }

  @Test
  void anyDisagreementIsAMismatch() {
    JsonRpcRequest request = call("{\"region\":\"eu\",\"n\":7}");
    Map<String, String> good = caseInsensitive(HeaderMirror.headers(request, SCHEMA));
    for (String header : good.keySet().toArray(new String[0])) {
      Map<String, String> missing = caseInsensitive(good);
      missing.remove(header);
      assertThat(HeaderMirror.mismatch(missing::get, request, SCHEMA)).as(header).isPresent();
      Map<String, String> changed = caseInsensitive(good);
      changed.put(header, "other");
      assertThat(HeaderMirror.mismatch(changed::get, request, SCHEMA)).as(header).isPresent();
    }
    Map<String, String> extra = caseInsensitive(good);
    extra.put("Mcp-Param-Flag", "true");
    assertThat(HeaderMirror.mismatch(extra::get, request, SCHEMA)).get().asString()
        .contains("without a value in the body");
    // header names are case-insensitive (values are not)
    assertThat(HeaderMirror.mismatch(h -> good.get(h.toLowerCase(Locale.ROOT)), request,
        SCHEMA)).isEmpty();
  }

  @Test
  void valuesRoundTripThroughTheSentinel() {
    for (String value : new String[] {"plain", " padded ", "tab\tinside", "ünïcode", "line\n",
        "=?base64?looks like one?=", ""}) {
      assertThat(HeaderMirror.decode(HeaderMirror.encode(value))).as(value).contains(value);
    }
    assertThat(HeaderMirror.decode("=?base64?not base64!?=")).isEmpty();
    assertThat(HeaderMirror.decode("bad\u0001")).isEmpty();
  }

  @Test
  void annotationsAreCheckedOnce() {
    assertThat(HeaderMirror.invalidAnnotation(SCHEMA)).isEmpty();
    ObjectNode twice = (ObjectNode) McpJson.standard().parse("{\"type\":\"object\","
        + "\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"X\"},"
        + "\"b\":{\"type\":\"string\",\"x-mcp-header\":\"x\"}}}");
    assertThat(HeaderMirror.invalidAnnotation(twice)).get().asString().contains("used twice");
    ObjectNode number = (ObjectNode) McpJson.standard().parse("{\"type\":\"object\","
        + "\"properties\":{\"a\":{\"type\":\"number\",\"x-mcp-header\":\"A\"}}}");
    assertThat(HeaderMirror.invalidAnnotation(number)).isPresent();
  }
}
