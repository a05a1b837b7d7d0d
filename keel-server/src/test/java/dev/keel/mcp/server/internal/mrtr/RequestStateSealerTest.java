package dev.keel.mcp.server.internal.mrtr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.RequestStateKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * A sealed {@code requestState} opens only as the exact string the server handed out. Found by
 * {@link RequestStateFuzzTest}: the 32-byte MAC is 43 base64url characters, whose last one
 * carries two bits the decoder throws away, so four different strings decoded to the same MAC and
 * all opened. A state is a bearer value a client may log or key on, so it must not be malleable.
 */
class RequestStateSealerTest {

  private static final String BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  private static RequestStateSealer sealer() {
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 7);
    return new RequestStateSealer(RequestStateKeys.of(key, List.of()), Duration.ofMinutes(5),
        Clock.systemUTC(), McpJson.standard());
  }

  @Test
  void theSealedStringOpens() {
    RequestStateSealer sealer = sealer();
    String digest = RequestStateSealer.digest(McpJson.object().put("x", 1));
    ObjectNode answers = McpJson.object().put("a", 1);
    String sealed = sealer.seal("alice", "tools/call", digest, 2, answers);

    RequestStateSealer.Opened opened =
        sealer.open(StringNode.valueOf(sealed), "alice", "tools/call", digest);

    assertThat(opened.round()).isEqualTo(2);
    assertThat(opened.answers()).isEqualTo(answers);
  }

  @Test
  void aMacWhoseDiscardedBitsDifferIsRefused() {
    RequestStateSealer sealer = sealer();
    String digest = RequestStateSealer.digest(McpJson.object().put("x", 1));
    String sealed = sealer.seal("alice", "tools/call", digest, 2, McpJson.object());
    int last = BASE64URL.indexOf(sealed.charAt(sealed.length() - 1));
    String head = sealed.substring(0, sealed.length() - 1);

    for (int low = 1; low < 4; low++) {
      // same six bits but for the two the decoder drops: decodes to the very same MAC bytes
      String twin = head + BASE64URL.charAt((last & ~3) | ((last + low) & 3));
      assertThat(twin).isNotEqualTo(sealed);
      assertThatThrownBy(() -> sealer.open(StringNode.valueOf(twin), "alice", "tools/call",
          digest))
          .isInstanceOfSatisfying(McpException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
    }
  }

  @Test
  void aPaddedOrSpacePaddedStateIsRefused() {
    RequestStateSealer sealer = sealer();
    String digest = RequestStateSealer.digest(McpJson.object());
    String sealed = sealer.seal("alice", "tools/call", digest, 1, McpJson.object());

    for (String variant : List.of(sealed + "=", sealed + "==", sealed + " ")) {
      assertThatThrownBy(() -> sealer.open(StringNode.valueOf(variant), "alice", "tools/call",
          digest)).isInstanceOf(McpException.class);
    }
  }

  /** A clock the test moves. */
  static final class MovableClock extends Clock {
    long millis = 1_700_000_000_000L;

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public java.time.Instant instant() {
      return java.time.Instant.ofEpochMilli(millis);
    }
  }

  /** A state opens up to the last millisecond of its time to live and never after it. */
  @Test
  void aStateOpensUntilItsTimeToLiveEndsAndNotAMillisecondLater() {
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 7);
    MovableClock clock = new MovableClock();
    RequestStateSealer sealer = new RequestStateSealer(RequestStateKeys.of(key, List.of()),
        Duration.ofMinutes(5), clock, McpJson.standard());
    String digest = RequestStateSealer.digest(McpJson.object());
    StringNode sealed = StringNode.valueOf(
        sealer.seal("alice", "tools/call", digest, 1, McpJson.object()));

    clock.millis += Duration.ofMinutes(5).toMillis();
    assertThat(sealer.open(sealed, "alice", "tools/call", digest).round()).isEqualTo(1);
    clock.millis += 1;
    assertThatThrownBy(() -> sealer.open(sealed, "alice", "tools/call", digest))
        .isInstanceOf(McpException.class)
        .satisfies(e -> assertThat(((McpException) e).code())
            .isEqualTo(ErrorCodes.INVALID_PARAMS));
  }

  /** Sealed for one principal, method and params, a state opens for no other. */
  @Test
  void aStateOpensOnlyForItsPrincipalMethodAndParams() {
    RequestStateSealer sealer = sealer();
    String digest = RequestStateSealer.digest(McpJson.object().put("x", 1));
    StringNode sealed = StringNode.valueOf(
        sealer.seal("alice", "tools/call", digest, 1, McpJson.object()));
    String other = RequestStateSealer.digest(McpJson.object().put("x", 2));

    assertThatThrownBy(() -> sealer.open(sealed, "bob", "tools/call", digest))
        .isInstanceOf(McpException.class);
    assertThatThrownBy(() -> sealer.open(sealed, "alice", "prompts/get", digest))
        .isInstanceOf(McpException.class);
    assertThatThrownBy(() -> sealer.open(sealed, "alice", "tools/call", other))
        .isInstanceOf(McpException.class);
    assertThat(sealer.open(sealed, "alice", "tools/call", digest).round()).isEqualTo(1);
  }

  /**
   * The params digest is of their meaning, not their spelling: members in another order, at any
   * depth, are the same params, and the state's own members and {@code _meta} are not params.
   */
  @Test
  void theParamsDigestIgnoresMemberOrderAndTheRoundTripMembers() {
    ObjectNode one = McpJson.standard().parseObject(
        "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[{\"y\":2,\"z\":3}]}}");
    ObjectNode reordered = McpJson.standard().parseObject(
        "{\"_meta\":{\"k\":1},\"requestState\":\"s\",\"inputResponses\":{},"
            + "\"arguments\":{\"b\":[{\"z\":3,\"y\":2}],\"a\":1},\"name\":\"t\"}");
    ObjectNode changed = McpJson.standard().parseObject(
        "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[{\"y\":2,\"z\":4}]}}");
    ObjectNode swapped = McpJson.standard().parseObject(
        "{\"name\":\"t\",\"arguments\":{\"a\":1,\"b\":[{\"z\":3},{\"y\":2}]}}");

    assertThat(RequestStateSealer.digest(reordered)).isEqualTo(RequestStateSealer.digest(one));
    assertThat(RequestStateSealer.digest(changed)).isNotEqualTo(RequestStateSealer.digest(one));
    assertThat(RequestStateSealer.digest(swapped)).isNotEqualTo(RequestStateSealer.digest(one));
  }
}
