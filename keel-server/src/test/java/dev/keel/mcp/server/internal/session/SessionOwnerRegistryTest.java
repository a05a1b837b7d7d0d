package dev.keel.mcp.server.internal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SessionOwnerRegistryTest {

  private static final String ALICE = "user:alice";
  private static final String BOB = "user:bob";
  /** 43 URL-safe characters, like a server-issued id. */
  private static final String CHANNEL = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5";
  private static final String[] BLANKS = {null, "", "   ", "\t"};

  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopThreads() {
    executor.shutdownNow();
  }

  private static String chars(char c, int n) {
    char[] a = new char[n];
    Arrays.fill(a, c);
    return new String(a);
  }

  @Test
  void inv4_bindBindsTheSessionToTheInitializingFingerprint() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, false);

    boolean bound = owners.bind("session-1", ALICE);

    assertThat(bound).isTrue();
    assertThat(owners.ownedBy("session-1", ALICE)).isTrue();
    assertThat(owners.ownedBy("session-1", BOB)).isFalse();
    assertThat(owners.ownedBy("session-2", ALICE)).isFalse();
    assertThat(owners.size()).isEqualTo(1);
  }

  @Test
  void inv6_authorizeAttachIsRefusedWhileChannelsAreOff() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, false);

    boolean attached = owners.authorizeAttach(CHANNEL, ALICE);

    assertThat(attached).isFalse();
    assertThat(owners.ownedBy(CHANNEL, ALICE)).isFalse();
    assertThat(owners.size()).isZero();
  }

  @Test
  void inv6_theFirstPrincipalToAttachClaimsAnUnseenIdAndOnlyItMayAttachAgain() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, true);

    boolean first = owners.authorizeAttach(CHANNEL, ALICE);
    boolean again = owners.authorizeAttach(CHANNEL, ALICE);
    boolean other = owners.authorizeAttach(CHANNEL, BOB);

    assertThat(first).isTrue();
    assertThat(again).isTrue();
    assertThat(other).isFalse();
    assertThat(owners.ownedBy(CHANNEL, ALICE)).isTrue();
    assertThat(owners.ownedBy(CHANNEL, BOB)).isFalse();
    assertThat(owners.size()).isEqualTo(1);
  }

  @Test
  void inv6_aLowEntropyIdCannotBeClaimed() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, true);
    List<String> lowEntropy = List.of(
        chars('a', 31),                       // too short
        "session-1",                          // guessable
        chars('a', 31) + ".",                 // a character outside [A-Za-z0-9_-]
        chars('a', 31) + "/",
        chars('a', 31) + "+",
        chars('a', 31) + " ",
        chars('a', 31) + "\u00e9",
        chars('a', 129));                     // too long

    List<String> claimed = new ArrayList<>();
    for (String id : lowEntropy) {
      if (owners.authorizeAttach(id, ALICE)) {
        claimed.add(id);
      }
    }

    assertThat(claimed).isEmpty();
    assertThat(owners.size()).isZero();
    assertThat(owners.authorizeAttach(chars('a', 32), ALICE)).isTrue();
    assertThat(owners.authorizeAttach("A-z_09" + chars('Q', 122), ALICE)).isTrue();
    assertThat(owners.size()).isEqualTo(2);
  }

  @Test
  void inv7_aBindingPersistsUntilForgetAndNothingElseRemovesIt() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, true);
    owners.bind("session-1", ALICE);

    owners.bind("session-1", BOB);
    owners.authorizeAttach("session-1", BOB);
    owners.ownedBy("session-1", BOB);
    owners.forget("session-2");
    owners.forget(null);
    owners.bind("session-2", BOB);

    assertThat(owners.ownedBy("session-1", ALICE)).isTrue();
    assertThat(owners.authorizeAttach("session-1", ALICE)).isTrue();

    owners.forget("session-1");

    assertThat(owners.ownedBy("session-1", ALICE)).isFalse();
    assertThat(owners.size()).isEqualTo(1);
    assertThat(owners.bind("session-1", BOB)).isTrue();
    assertThat(owners.ownedBy("session-1", BOB)).isTrue();
  }

  @Test
  void inv8_ownerRegistryNeverHoldsMoreThanItsMaximum() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(3, true);

    for (int i = 0; i < 10; i++) {
      owners.bind("session-" + i, ALICE);
      assertThat(owners.size()).isLessThanOrEqualTo(3);
    }
    owners.authorizeAttach(CHANNEL, BOB);

    assertThat(owners.size()).isEqualTo(3);
    assertThat(owners.ownedBy("session-8", ALICE)).isTrue();
    assertThat(owners.ownedBy("session-9", ALICE)).isTrue();
    assertThat(owners.ownedBy(CHANNEL, BOB)).isTrue();
    assertThat(owners.ownedBy("session-7", ALICE)).isFalse();
    assertThat(owners.ownedBy("session-0", ALICE)).isFalse();
  }

  @Test
  void inv8_ownerRegistryEvictsTheLeastRecentlyUsedBindingFirst() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(3, false);
    owners.bind("oldest", ALICE);
    owners.bind("middle", ALICE);
    owners.bind("newest", ALICE);

    assertThat(owners.ownedBy("oldest", ALICE)).isTrue(); // used: now the most recent
    owners.bind("fourth", ALICE);

    assertThat(owners.ownedBy("middle", ALICE)).as("least recently used").isFalse();
    assertThat(owners.ownedBy("oldest", ALICE)).isTrue();
    assertThat(owners.ownedBy("newest", ALICE)).isTrue();
    assertThat(owners.ownedBy("fourth", ALICE)).isTrue();
    assertThat(owners.size()).isEqualTo(3);
  }

  @Test
  void inv8_theDefaultMaximumIsTenThousand() {
    SessionOwnerRegistry owners =
        new SessionOwnerRegistry(SessionOwnerRegistry.DEFAULT_MAX_ENTRIES, false);

    for (int i = 0; i <= 10_000; i++) {
      owners.bind("session-" + i, ALICE);
    }

    assertThat(SessionOwnerRegistry.DEFAULT_MAX_ENTRIES).isEqualTo(10_000);
    assertThat(owners.size()).isEqualTo(10_000);
    assertThat(owners.ownedBy("session-0", ALICE)).isFalse();
    assertThat(owners.ownedBy("session-1", ALICE)).isTrue();
    assertThat(owners.ownedBy("session-10000", ALICE)).isTrue();
  }

  @Test
  void aRegistryWithoutRoomForOneBindingIsRejected() {
    assertThatThrownBy(() -> new SessionOwnerRegistry(0, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SessionOwnerRegistry(-1, true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void inv9_blankIdsAndFingerprintsAlwaysFail() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, true);
    owners.bind("session-1", ALICE);
    owners.authorizeAttach(CHANNEL, ALICE);
    List<String> passed = new ArrayList<>();

    for (String blank : BLANKS) {
      String shown = String.valueOf(blank);
      if (owners.bind(blank, ALICE)) {
        passed.add("bind id " + shown);
      }
      if (owners.bind("session-2", blank)) {
        passed.add("bind fingerprint " + shown);
      }
      if (owners.ownedBy(blank, ALICE)) {
        passed.add("ownedBy id " + shown);
      }
      if (owners.ownedBy("session-1", blank)) {
        passed.add("ownedBy fingerprint " + shown);
      }
      if (owners.authorizeAttach(blank, ALICE)) {
        passed.add("authorizeAttach id " + shown);
      }
      if (owners.authorizeAttach(CHANNEL, blank)) {
        passed.add("authorizeAttach fingerprint " + shown);
      }
      if (owners.authorizeAttach(chars('b', 40), blank)) {
        passed.add("authorizeAttach new id, fingerprint " + shown);
      }
    }

    assertThat(passed).isEmpty();
    assertThat(owners.size()).isEqualTo(2);
  }

  @Test
  void inv10_bindByAnotherFingerprintIsRefusedAndKeepsTheOriginalOwner() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, false);
    owners.bind("session-1", ALICE);

    boolean hijacked = owners.bind("session-1", BOB);

    assertThat(hijacked).isFalse();
    assertThat(owners.ownedBy("session-1", ALICE)).isTrue();
    assertThat(owners.ownedBy("session-1", BOB)).isFalse();
    assertThat(owners.size()).isEqualTo(1);
  }

  @Test
  void inv10_theOwnerRebindingRefreshesItsBinding() {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(2, false);
    owners.bind("session-1", ALICE);
    owners.bind("session-2", BOB);

    boolean rebound = owners.bind("session-1", ALICE); // now the most recent
    owners.bind("session-3", BOB);

    assertThat(rebound).isTrue();
    assertThat(owners.ownedBy("session-1", ALICE)).isTrue();
    assertThat(owners.ownedBy("session-2", BOB)).as("least recently used").isFalse();
    assertThat(owners.ownedBy("session-3", BOB)).isTrue();
  }

  @Test
  void inv10_twoPrincipalsBindingOneIdAtOnceLeaveExactlyOneOwner() throws Exception {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(1_000, false);

    for (int i = 0; i < 300; i++) {
      String id = "race-" + i;
      CountDownLatch go = new CountDownLatch(1);
      Future<Boolean> alice = executor.submit(() -> {
        go.await();
        return owners.bind(id, ALICE);
      });
      Future<Boolean> bob = executor.submit(() -> {
        go.await();
        return owners.bind(id, BOB);
      });
      go.countDown();
      boolean aliceWon = alice.get(2, TimeUnit.SECONDS);
      boolean bobWon = bob.get(2, TimeUnit.SECONDS);

      assertThat(aliceWon ^ bobWon).as("exactly one bind of %s succeeds", id).isTrue();
      assertThat(owners.ownedBy(id, aliceWon ? ALICE : BOB)).isTrue();
      assertThat(owners.ownedBy(id, aliceWon ? BOB : ALICE)).isFalse();
    }
  }

  /**
   * Every operation lets go of the table: a lock it kept would be reentrant for the thread that
   * took it and block every other request thread (found by mutation testing, docs/reliability.md).
   */
  @Test
  @Timeout(10)
  void everyOperationLetsTheNextThreadIn() throws Exception {
    SessionOwnerRegistry owners = new SessionOwnerRegistry(10, true);
    List<Runnable> operations = List.of(
        () -> owners.bind("session-1", ALICE),
        () -> owners.bind("session-1", BOB),
        () -> owners.ownedBy("session-1", ALICE),
        () -> owners.authorizeAttach(CHANNEL, ALICE),
        () -> owners.authorizeAttach(CHANNEL, BOB),
        () -> owners.authorizeAttach("short", BOB),
        () -> owners.size(),
        () -> owners.forget("session-1"));
    for (Runnable operation : operations) {
      operation.run();
      Future<Integer> other = executor.submit(owners::size);
      assertThat(other.get(2, TimeUnit.SECONDS)).isBetween(0, 2);
    }
  }
}
