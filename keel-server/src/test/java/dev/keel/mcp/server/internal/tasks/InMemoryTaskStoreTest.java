package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Instant;
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
}
