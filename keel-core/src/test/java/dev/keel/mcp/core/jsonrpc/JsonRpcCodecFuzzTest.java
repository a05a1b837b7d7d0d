package dev.keel.mcp.core.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;

/**
 * Coverage-guided fuzzing of the JSON-RPC decoder under small limits (so the fuzzer reaches
 * them): whatever the bytes, decoding either yields one message or throws
 * {@link InvalidMessageException} with a parse or invalid-request code, whose text never quotes
 * the input; a decoded message encodes and decodes back to itself. Anything else escaping is a
 * finding (it would reach a transport as a 500 or a dropped stdio line).
 */
class JsonRpcCodecFuzzTest {

  private static final JsonLimits LIMITS = new JsonLimits(2048, 8, 256);
  private static final JsonRpcCodec CODEC = new JsonRpcCodec(McpJson.create(LIMITS));

  @FuzzTest
  void decodeAnything(byte[] input) {
    JsonRpcMessage message;
    try {
      message = CODEC.decode(input);
    } catch (InvalidMessageException e) {
      assertThat(e.code()).isIn(ErrorCodes.PARSE_ERROR, ErrorCodes.INVALID_REQUEST);
      assertThat(e.getMessage()).hasSizeLessThan(120);
      return;
    }
    assertThat(input.length).isLessThanOrEqualTo(LIMITS.maxBytes());
    byte[] again = CODEC.encode(message);
    assertThat(CODEC.decode(again)).isEqualTo(message);
  }
}
