package dev.keel.mcp.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The pins and guards a thread holds, one transport at a time, undone when their block ends
 * however it ends. The client's own tests reach these through whole exchanges; here each rule
 * stands alone, so that a mutation of one of them fails a test that names it.
 */
class SessionPinsTest {

  /** A transport that is only an identity: pins are keyed by the transport object. */
  private static final class Inert implements ClientTransport {
    @Override
    public void start(Receiver receiver) {}

    @Override
    public Exchange send(JsonRpcMessage message, SendOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long sessionEpoch() {
      return 0;
    }

    @Override
    public String sessionId() {
      return null;
    }

    @Override
    public void close() {}
  }

  private final ClientTransport a = new Inert();
  private final ClientTransport b = new Inert();

  @Test
  void aThreadWithoutPinsOrGuardsWritesAtAnyEpoch() {
    assertThat(SessionPins.pinOf(a)).isNull();
    assertThatCode(() -> SessionPins.check(a, 7)).doesNotThrowAnyException();
  }

  @Test
  void aPinnedWriteIsRefusedOnceTheEpochMovedAndNamesBothEpochs() {
    SessionPins.pinned(a, 3, () -> {
      assertThat(SessionPins.pinOf(a)).isEqualTo(3L);
      assertThatCode(() -> SessionPins.check(a, 3)).doesNotThrowAnyException();
      assertThatThrownBy(() -> SessionPins.check(a, 4))
          .isInstanceOf(SessionChangedException.class)
          .hasMessageContaining("session 3 is over")
          .hasMessageContaining("at 4");
      return null;
    });
  }

  @Test
  void aPinHoldsForItsTransportOnly() {
    SessionPins.pinned(a, 3, () -> {
      assertThat(SessionPins.pinOf(b)).isNull();
      assertThatCode(() -> SessionPins.check(b, 9)).doesNotThrowAnyException();
      return null;
    });
  }

  @Test
  void aPinIsLiftedWhenItsBlockReturnsOrThrows() {
    assertThat(SessionPins.pinned(a, 3, () -> "done")).isEqualTo("done");
    assertThat(SessionPins.pinOf(a)).isNull();
    assertThatCode(() -> SessionPins.check(a, 4)).doesNotThrowAnyException();

    assertThatThrownBy(() -> SessionPins.pinned(a, 3, () -> {
      throw new IllegalStateException("block failed");
    })).hasMessage("block failed");
    assertThat(SessionPins.pinOf(a)).isNull();
    assertThatCode(() -> SessionPins.check(a, 4)).doesNotThrowAnyException();
  }

  @Test
  void aNestedPinOverridesAndTheOuterOneComesBack() {
    SessionPins.pinned(a, 3, () -> SessionPins.pinned(b, 5, () -> {
      SessionPins.pinned(a, 4, () -> {
        assertThat(SessionPins.pinOf(a)).isEqualTo(4L);
        assertThat(SessionPins.pinOf(b)).isEqualTo(5L);
        return null;
      });
      assertThat(SessionPins.pinOf(a)).isEqualTo(3L);
      assertThat(SessionPins.pinOf(b)).isEqualTo(5L);
      return null;
    }));
    assertThat(SessionPins.pinOf(a)).isNull();
    assertThat(SessionPins.pinOf(b)).isNull();
  }

  @Test
  void aGuardRunsBeforeEachWriteOfItsTransportAndCanRefuseIt() {
    List<String> ran = new ArrayList<>();
    SessionPins.guarded(a, () -> ran.add("a"), () -> {
      SessionPins.check(a, 1);
      SessionPins.check(b, 1);
      SessionPins.check(a, 2);
      return null;
    });
    assertThat(ran).containsExactly("a", "a");

    SessionPins.guarded(a, () -> {
      throw new IllegalStateException("task ended");
    }, () -> {
      assertThatThrownBy(() -> SessionPins.check(a, 1)).hasMessage("task ended");
      return null;
    });
  }

  @Test
  void aGuardIsCheckedEvenWhenThePinMatches() {
    SessionPins.pinned(a, 1, () -> SessionPins.guarded(a, () -> {
      throw new IllegalStateException("guard");
    }, () -> {
      assertThatThrownBy(() -> SessionPins.check(a, 1)).hasMessage("guard");
      return null;
    }));
  }

  @Test
  void aGuardIsLiftedWhenItsBlockEndsAndAnOuterGuardComesBack() {
    List<String> ran = new ArrayList<>();
    SessionPins.guarded(a, () -> ran.add("outer"), () -> {
      assertThatThrownBy(() -> SessionPins.guarded(a, () -> ran.add("inner"), () -> {
        SessionPins.check(a, 1);
        throw new IllegalStateException("block failed");
      })).hasMessage("block failed");
      SessionPins.check(a, 1);
      return null;
    });
    SessionPins.check(a, 1);
    assertThat(ran).containsExactly("inner", "outer");
  }

  @Test
  void unpinnedLiftsPinAndGuardOfOneTransportAndRestoresBoth() {
    List<String> ran = new ArrayList<>();
    SessionPins.pinned(a, 3, () -> SessionPins.pinned(b, 5,
        () -> SessionPins.guarded(a, () -> ran.add("a"), () -> {
          SessionPins.unpinned(a, () -> {
            assertThat(SessionPins.pinOf(a)).isNull();
            assertThat(SessionPins.pinOf(b)).isEqualTo(5L);
            assertThatCode(() -> SessionPins.check(a, 99)).doesNotThrowAnyException();
            assertThatThrownBy(() -> SessionPins.check(b, 99))
                .isInstanceOf(SessionChangedException.class);
            return null;
          });
          assertThat(ran).isEmpty();
          assertThat(SessionPins.pinOf(a)).isEqualTo(3L);
          assertThatThrownBy(() -> SessionPins.check(a, 99))
              .isInstanceOf(SessionChangedException.class);
          assertThat(ran).containsExactly("a");
          return null;
        })));
  }

  @Test
  void unpinnedLiftsAPinWithoutAGuardAndAGuardWithoutAPin() {
    SessionPins.pinned(a, 3, () -> {
      SessionPins.unpinned(a, () -> {
        assertThatCode(() -> SessionPins.check(a, 4)).doesNotThrowAnyException();
        return null;
      });
      assertThatThrownBy(() -> SessionPins.check(a, 4))
          .isInstanceOf(SessionChangedException.class);
      return null;
    });

    List<String> ran = new ArrayList<>();
    SessionPins.guarded(a, () -> ran.add("a"), () -> {
      SessionPins.unpinned(a, () -> {
        SessionPins.check(a, 4);
        return null;
      });
      return null;
    });
    assertThat(ran).isEmpty();
  }

  @Test
  void unpinnedRestoresEvenWhenItsBlockThrows() {
    SessionPins.pinned(a, 3, () -> {
      assertThatThrownBy(() -> SessionPins.unpinned(a, () -> {
        throw new IllegalStateException("block failed");
      })).hasMessage("block failed");
      assertThat(SessionPins.pinOf(a)).isEqualTo(3L);
      return null;
    });
  }

  @Test
  void unpinnedWithNothingToLiftRunsTheBlock() {
    assertThat(SessionPins.unpinned(a, () -> "ran")).isEqualTo("ran");
    SessionPins.pinned(b, 1, () -> {
      assertThat(SessionPins.unpinned(a, () -> SessionPins.pinOf(b))).isEqualTo(1L);
      return null;
    });
  }

  @Test
  void pinsBelongToTheThreadThatSetThem() throws Exception {
    SessionPins.pinned(a, 3, () -> {
      Long elsewhere = CompletableFuture.supplyAsync(() -> SessionPins.pinOf(a)).join();
      assertThat(elsewhere).isNull();
      return null;
    });
  }

  @Test
  void everyBlockReturnsWhatItsWorkReturned() {
    assertThat(SessionPins.guarded(a, () -> { }, () -> "guarded")).isEqualTo("guarded");
    assertThat(SessionPins.pinned(a, 1, () -> SessionPins.unpinned(a, () -> "unpinned")))
        .isEqualTo("unpinned");
  }

  /**
   * On a thread that held nothing before, ending a block must leave nothing behind: what an
   * earlier test left on a pooled thread would hide a pin that outlived its block.
   */
  @Test
  void aThreadThatHeldNothingHoldsNothingAfterItsBlocks() throws Exception {
    List<String> ran = new ArrayList<>();
    Long[] after = new Long[2];
    Thread fresh = new Thread(() -> {
      SessionPins.pinned(a, 3, () -> null);
      after[0] = SessionPins.pinOf(a);
      SessionPins.guarded(b, () -> ran.add("b"), () -> null);
      SessionPins.check(b, 1);
      SessionPins.pinned(a, 3, () -> SessionPins.unpinned(a, () -> null));
      after[1] = SessionPins.pinOf(a);
    });
    fresh.start();
    fresh.join(5_000);
    assertThat(after).containsOnlyNulls();
    assertThat(ran).isEmpty();
  }
}
