package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryTaskStoreTest {

  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static StoredTask task(String id, String owner, long ttl) {
    return new StoredTask(id, owner, null, true, TaskStatus.WORKING, null, T0, T0, ttl, 500,
        null, null, null);
  }

  static void end(InMemoryTaskStore store, String id) {
    store.update(id, t -> t.finished(TaskStatus.COMPLETED, null, null, null, T0));
  }

  @Test
  void aFullStoreDropsTheOldestEndedTaskAndNeverARunningOne() {
    InMemoryTaskStore store = new InMemoryTaskStore(3, 3);
    store.create(task("a", "alice", 60_000));
    store.create(task("b", "bob", 60_000));
    store.create(task("c", "bob", 60_000));
    end(store, "b");
    assertThat(store.create(task("d", "alice", 60_000))).isTrue();
    assertThat(store.get("b")).isEmpty();
    assertThat(store.get("a")).isPresent();
    assertThat(store.size()).isEqualTo(3);
    // Nothing has ended now: a full store of running tasks refuses.
    assertThat(store.create(task("e", "alice", 60_000))).isFalse();
    assertThat(store.size()).isEqualTo(3);
  }

  @Test
  void anOwnerAtItsLimitMakesRoomOnlyFromItsOwnEndedTasks() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 2);
    store.create(task("bob-1", "bob", 60_000));
    end(store, "bob-1");
    store.create(task("a1", "alice", 60_000));
    store.create(task("a2", "alice", 60_000));
    assertThat(store.create(task("a3", "alice", 60_000))).isFalse();
    assertThat(store.get("bob-1")).isPresent();
    end(store, "a1");
    assertThat(store.create(task("a3", "alice", 60_000))).isTrue();
    assertThat(store.get("a1")).isEmpty();
    assertThat(store.byOwner("alice")).extracting(StoredTask::taskId).containsExactly("a2", "a3");
  }

  @Test
  void aTerminalTaskNeverChangesAgain() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 10);
    store.create(task("a", "alice", 60_000));
    store.update("a", t -> t.finished(TaskStatus.CANCELLED, "stop", null, null, T0));
    store.update("a", t -> t.withStatus(TaskStatus.WORKING, null, T0.plusSeconds(1)));
    store.update("a", t -> t.finished(TaskStatus.COMPLETED, null, null, null, T0));
    assertThat(store.get("a").orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);
  }

  @Test
  void expiryRemovesOnlyTasksWhoseTtlEnded() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 10);
    store.create(task("short", "alice", 1_000));
    store.create(task("long", "alice", 60_000));
    assertThat(store.removeExpired(T0.plusMillis(999))).isEmpty();
    assertThat(store.removeExpired(T0.plusMillis(1_000))).containsExactly("short");
    assertThat(store.get("long")).isPresent();
    assertThat(store.byOwner("alice")).hasSize(1);
  }

  @Test
  void limitsMustBePositive() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new InMemoryTaskStore(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new InMemoryTaskStore(1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new InMemoryTaskStore(1, 1).size()).isZero();
  }

  @Test
  void aTaskIdIsTakenOnce() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 10);
    StoredTask first = task("a", "alice", 60_000);
    assertThat(store.create(first)).isTrue();
    assertThat(store.create(task("a", "bob", 60_000))).isFalse();
    assertThat(store.get("a")).contains(first);
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.byOwner("bob")).isEmpty();
  }

  @Test
  void removingATaskGivesItsOwnerThePlaceBackOneAtATime() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 2);
    store.create(task("a1", "alice", 60_000));
    store.create(task("a2", "alice", 60_000));
    assertThat(store.create(task("a3", "alice", 60_000))).isFalse();
    store.remove("a1");
    store.remove("a1"); // a second remove of the same task gives nothing back
    store.remove("unknown");
    assertThat(store.create(task("a3", "alice", 60_000))).isTrue();
    assertThat(store.create(task("a4", "alice", 60_000))).isFalse();
    store.remove("a2");
    store.remove("a3");
    assertThat(store.size()).isZero();
    assertThat(store.create(task("a5", "alice", 60_000))).isTrue();
    assertThat(store.create(task("a6", "alice", 60_000))).isTrue();
    assertThat(store.create(task("a7", "alice", 60_000))).isFalse();
  }

  @Test
  void expiredTasksGiveTheirOwnersThePlaceBack() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 2);
    store.create(task("a1", "alice", 1_000));
    store.create(task("a2", "alice", 1_000));
    store.create(task("b1", "bob", 1_000));
    assertThat(store.removeExpired(T0.plusMillis(1_000))).containsExactly("a1", "a2", "b1");
    assertThat(store.create(task("a3", "alice", 60_000))).isTrue();
    assertThat(store.create(task("a4", "alice", 60_000))).isTrue();
    assertThat(store.create(task("a5", "alice", 60_000))).isFalse();
  }

  /**
   * An owner whose last task went, by any of the three ways out (removed, expired, dropped for
   * room), is no longer counted: else the counts grow with every owner ever seen.
   */
  @Test
  void anOwnerWithNoTaskLeftIsNoLongerCounted() {
    InMemoryTaskStore store = new InMemoryTaskStore(4, 5);
    store.create(task("a1", "alice", 60_000));
    store.create(task("b1", "bob", 1_000));
    store.create(task("c1", "carol", 60_000));
    store.create(task("c2", "carol", 60_000));
    assertThat(store.create(task("d1", "dave", 60_000))).isFalse();
    assertThat(store.countedOwners()).isEqualTo(3);

    store.remove("a1");
    assertThat(store.countedOwners()).as("alice removed").isEqualTo(2);
    store.removeExpired(T0.plusMillis(1_000));
    assertThat(store.countedOwners()).as("bob expired").isEqualTo(1);
    end(store, "c1");
    end(store, "c2");
    for (String id : List.of("d1", "d2", "d3", "d4")) {
      assertThat(store.create(task(id, "dave", 60_000))).as(id).isTrue();
    }
    // carol's two ended tasks were dropped to make room: only dave holds tasks now
    assertThat(store.byOwner("carol")).isEmpty();
    assertThat(store.countedOwners()).as("carol dropped for room").isEqualTo(1);
  }

  @Test
  void droppingAnEndedTaskForRoomCountsItsOwnerDown() {
    InMemoryTaskStore store = new InMemoryTaskStore(2, 2);
    store.create(task("b1", "bob", 60_000));
    store.create(task("b2", "bob", 60_000));
    end(store, "b1");
    // the store is full: alice's task takes the place of bob's ended one
    assertThat(store.create(task("a1", "alice", 60_000))).isTrue();
    assertThat(store.get("b1")).isEmpty();
    // bob now holds one task, so one more of his fits by his own limit once there is room
    store.remove("a1");
    assertThat(store.create(task("b3", "bob", 60_000))).isTrue();
    assertThat(store.byOwner("bob")).extracting(StoredTask::taskId).containsExactly("b2", "b3");
  }

  @Test
  void anUpdateNeverMovesATaskToAnotherIdOrOwner() {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 10);
    store.create(task("a", "alice", 60_000));
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> store.update("a", t -> task("a", "bob", 60_000)))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> store.update("a", t -> task("b", "alice", 60_000)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.get("a").orElseThrow().owner()).isEqualTo("alice");
    assertThat(store.get("b")).isEmpty();
    assertThat(store.update("unknown", t -> t)).isEmpty();
  }

  @Test
  void everyCallReleasesTheStoresLock() throws Exception {
    InMemoryTaskStore store = new InMemoryTaskStore(10, 10);
    store.create(task("a", "alice", 60_000));
    store.remove("a");
    store.size();
    store.byOwner("alice");
    store.removeExpired(T0);
    store.update("a", t -> t);
    store.get("a");
    store.countedOwners();
    // another thread takes the same lock: it would wait forever on a lock left held
    assertThat(java.util.concurrent.CompletableFuture.supplyAsync(
        () -> store.create(task("b", "bob", 60_000)))
        .get(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
  }
}
