package dev.keel.mcp.server.internal.mrtr;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.RequestStateKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Fuzzes opening a {@code requestState}, the one value of an MRTR round a client hands back: a
 * state the fuzzer writes from nothing, or a real sealed state it edits, opens only when it is
 * exactly the state the server sealed for that principal, method and params; everything else is
 * refused with -32602 and nothing else escapes.
 */
class RequestStateFuzzTest {

  private static final byte[] KEY = new byte[32];

  static {
    Arrays.fill(KEY, (byte) 7);
  }

  private static final RequestStateSealer SEALER = new RequestStateSealer(
      RequestStateKeys.of(KEY, List.of()), Duration.ofMinutes(5), Clock.systemUTC(),
      McpJson.standard());
  private static final String DIGEST = RequestStateSealer.digest(McpJson.object().put("x", 1));
  private static final String SEALED;

  static {
    ObjectNode answers = McpJson.object();
    answers.putObject("approve").put("action", "accept");
    SEALED = SEALER.seal("alice", "tools/call", DIGEST, 2, answers);
  }

  @FuzzTest
  void openAnything(FuzzedDataProvider data) {
    String token;
    if (data.consumeBoolean()) {
      token = data.consumeString(600);
    } else {
      StringBuilder edited = new StringBuilder(SEALED);
      int edits = data.consumeInt(1, 3);
      for (int i = 0; i < edits && edited.length() > 0; i++) {
        int at = data.consumeInt(0, edited.length() - 1);
        switch (data.consumeInt(0, 2)) {
          case 0 -> edited.setCharAt(at, data.consumeChar());
          case 1 -> edited.deleteCharAt(at);
          default -> edited.insert(at, data.consumeChar());
        }
      }
      token = edited.toString();
    }
    String principal = data.consumeBoolean() ? "alice" : data.consumeString(10);
    String method = data.consumeBoolean() ? "tools/call" : data.consumeString(12);
    try {
      RequestStateSealer.Opened opened = SEALER.open(StringNode.valueOf(token), principal,
          method, DIGEST);
      assertThat(token).as("only the sealed state opens").isEqualTo(SEALED);
      assertThat(principal).isEqualTo("alice");
      assertThat(method).isEqualTo("tools/call");
      assertThat(opened.round()).isEqualTo(2);
    } catch (McpException e) {
      assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }
  }
}
