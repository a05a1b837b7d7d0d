package dev.keel.mcp.server.internal.mrtr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.RequestStateKeys;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.StringNode;

/**
 * Two nodes' sealers over one shared key ring: a state sealed on one opens on the other, also
 * right after a rotation the other has not seen yet (it asks its ring again, once), and a state
 * under a key the ring dropped is refused.
 */
class RequestStateKeyRingTest {

  /** A shared ring as a node sees it: what it last read, and the truth it reads on refresh. */
  static final class SharedRing implements RequestStateKeys {
    final AtomicReference<List<byte[]>> truth;
    final AtomicInteger refreshes = new AtomicInteger();
    private volatile List<byte[]> seen;

    SharedRing(AtomicReference<List<byte[]>> truth) {
      this.truth = truth;
      this.seen = truth.get();
    }

    @Override
    public List<byte[]> keys() {
      return seen;
    }

    @Override
    public List<byte[]> refresh() {
      refreshes.incrementAndGet();
      seen = truth.get();
      return seen;
    }
  }

  private static byte[] key(int b) {
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) b);
    return k;
  }

  private static RequestStateSealer sealer(RequestStateKeys ring) {
    return new RequestStateSealer(ring, Duration.ofMinutes(5), Clock.systemUTC(),
        McpJson.standard());
  }

  private static String seal(RequestStateSealer s) {
    return s.seal("fp", "tools/call", "d", 1, McpJson.object().put("k1", "v"));
  }

  private static RequestStateSealer.Opened open(RequestStateSealer s, String state) {
    return s.open(StringNode.valueOf(state), "fp", "tools/call", "d");
  }

  @Test
  void aStateSealedOnOneNodeOpensOnAnotherAcrossARotation() {
    AtomicReference<List<byte[]>> truth = new AtomicReference<>(List.of(key(1)));
    SharedRing ringA = new SharedRing(truth);
    SharedRing ringB = new SharedRing(truth);
    RequestStateSealer a = sealer(ringA);
    RequestStateSealer b = sealer(ringB);

    assertThat(open(b, seal(a)).round()).isEqualTo(1);
    assertThat(ringB.refreshes).as("a known key needs no look").hasValue(0);

    truth.set(List.of(key(2), key(1))); // rotated, as node A sees at once
    ringA.refresh();
    String underNewKey = seal(a);
    assertThat(open(b, underNewKey).answers().path("k1").asString()).isEqualTo("v");
    assertThat(ringB.refreshes).as("B looked again once").hasValue(1);
    String underOldKey = seal(b); // B now seals with the new key as well
    assertThat(open(a, underOldKey).round()).isEqualTo(1);

    String sealedBeforeDrop = seal(sealer(RequestStateKeys.of(key(1), List.of())));
    truth.set(List.of(key(3), key(2))); // key 1 leaves the ring
    ringA.refresh();
    assertThatThrownBy(() -> open(a, sealedBeforeDrop)).isInstanceOf(McpException.class)
        .hasMessageContaining("Invalid requestState");
  }

  @Test
  void aStateUnderAKeyNoRingEverHeldIsRefusedAfterOneLook() {
    AtomicReference<List<byte[]>> truth = new AtomicReference<>(List.of(key(1)));
    SharedRing ring = new SharedRing(truth);
    String foreign = seal(sealer(RequestStateKeys.of(key(9), List.of())));
    assertThatThrownBy(() -> open(sealer(ring), foreign)).isInstanceOf(McpException.class);
    assertThat(ring.refreshes).hasValue(1);
  }
}
