package dev.keel.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.internal.TaskAnswers;
import dev.keel.mcp.client.internal.TaskLifetimes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ElicitResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Task handles (invariants 54-57): a handle acts only on the task it was made for, at the
 * server that made it, and the answers a task is owed survive ambiguous deliveries.
 */
class TaskHandlesTest {

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private TaskServer server() throws Exception {
    TaskServer s = new TaskServer();
    open.add(s);
    return s;
  }

  private McpClient client(TaskServer server) {
    McpClient c = McpClient.builder(StreamableHttpTransport.builder(server.endpoint()).build())
        .requestTimeout(Duration.ofSeconds(10))
        .elicitation(r -> new ElicitResult(ElicitResult.Action.ACCEPT, McpJson.object(), null))
        .connect();
    open.add(c);
    c.listTools();
    return c;
  }

  @Test
  void inv54_aHandleWhoseIdANewerTaskReusedIsRefusedForGetUpdateCancelAndWait()
      throws Exception {
    TaskServer server = server();
    McpClient client = client(server);
    Task first = client.callToolAsTask("job", null, CallOptions.defaults());
    assertThat(client.getTask(first).status()).isEqualTo(Task.Status.WORKING);
    // The server reuses the id for a newer task.
    Task second = client.callToolAsTask("job", null, CallOptions.defaults());
    assertThat(second.taskId()).isEqualTo(first.taskId());
    int before = server.received.size();

    assertThatThrownBy(() -> client.getTask(first)).isInstanceOf(TaskReplacedException.class);
    assertThatThrownBy(() -> client.cancelTask(first))
        .isInstanceOf(TaskReplacedException.class);
    assertThatThrownBy(() -> client.awaitTask(first, Duration.ofSeconds(1)))
        .isInstanceOf(TaskReplacedException.class);
    TaskAnswers owed = new TaskAnswers();
    owed.answer("q", McpJson.object().put("action", "accept"));
    assertThatThrownBy(() -> ((RealMcpClient) client).tasks().update(first, owed,
        Duration.ofSeconds(1))).isInstanceOf(TaskReplacedException.class);
    assertThat(server.received).as("nothing was sent for the stale handle").hasSize(before);

    // The newer handle works.
    assertThat(client.getTask(second).status()).isEqualTo(Task.Status.WORKING);
  }

  @Test
  void inv55_lifetimeNumbersAreNeverReusedEvenAfterPruning() {
    TaskLifetimes lifetimes = new TaskLifetimes(2);
    long a = lifetimes.start("a");
    long b = lifetimes.start("b");
    lifetimes.ended("a", a);
    long c = lifetimes.start("c");
    assertThat(lifetimes.size()).isEqualTo(2);
    assertThat(lifetimes.isCurrent("a", a)).as("the ended task was forgotten first").isFalse();
    assertThat(lifetimes.isCurrent("b", b)).isTrue();
    long again = lifetimes.start("a");
    assertThat(List.of(a, b, c, again)).doesNotHaveDuplicates().isSorted();
    assertThat(lifetimes.isCurrent("a", a)).as("the old handle stays refused").isFalse();
    assertThat(lifetimes.isCurrent("a", again)).isTrue();
    // Nothing ended: the oldest is forgotten, never re-numbered.
    long d = lifetimes.start("d");
    assertThat(d).isGreaterThan(again);
    assertThat(lifetimes.isCurrent("b", b)).isFalse();
  }

  @Test
  void inv56_anAmbiguousUpdateKeepsItsAnswersADefiniteRejectionGivesBackOnlyItsOwnKeys()
      throws Exception {
    TaskServer server = server();
    McpClient client = client(server);
    Task task = client.callToolAsTask("job", null, CallOptions.defaults());
    TaskCalls calls = ((RealMcpClient) client).tasks();
    TaskAnswers owed = calls.answersOf(task);

    // 1. The server takes longer than the client waits: the outcome is unknown.
    server.onUpdate = p -> {
      sleep(1_500);
      return McpJson.object();
    };
    owed.answer("q1", text("one"));
    calls.update(task, owed, Duration.ofMillis(300));
    assertThat(owed.pendingKeys()).containsExactly("q1");
    assertThat(owed.needsAnswer("q1")).isFalse();

    // 2. The next update carries q1 again with q2; the server refuses it outright.
    server.onUpdate = p -> {
      throw new TaskServer.Refusal(-32602, "Invalid inputResponses");
    };
    owed.answer("q2", text("two"));
    assertThatThrownBy(() -> calls.update(task, owed, Duration.ofSeconds(5)))
        .isInstanceOf(McpException.class);
    assertThat(server.calls("tasks/update").get(1).params().path("inputResponses")
        .propertyNames()).containsExactlyInAnyOrder("q1", "q2");
    assertThat(owed.pendingKeys()).isEmpty();
    assertThat(owed.needsAnswer("q1")).as("given back: may be answered anew").isTrue();
    assertThat(owed.needsAnswer("q2")).isTrue();

    // 3. Confirmed: only that update's keys are cleared.
    server.onUpdate = p -> McpJson.object();
    owed.answer("q3", text("three"));
    calls.update(task, owed, Duration.ofSeconds(5));
    assertThat(owed.pendingKeys()).isEmpty();
    assertThat(server.calls("tasks/update").get(2).params().path("inputResponses")
        .propertyNames()).containsExactly("q3");

    // The bookkeeping on its own: a batch only ever settles the keys it still owns.
    TaskAnswers alone = new TaskAnswers();
    alone.answer("a", text("1"));
    TaskAnswers.Batch older = alone.take();
    alone.answer("b", text("2"));
    TaskAnswers.Batch newer = alone.take();
    alone.rejected(older);
    assertThat(alone.pendingKeys()).containsExactlyInAnyOrder("a", "b");
    alone.answer("c", text("3"));
    alone.confirmed(newer);
    assertThat(alone.pendingKeys()).containsExactly("c");
  }

  @Test
  void inv56_theWaitDeliversAnswersOnceAndResendsThemAfterAnAmbiguousUpdate()
      throws Exception {
    TaskServer server = server();
    McpClient client = client(server);
    Task task = client.callToolAsTask("job", null, CallOptions.defaults());
    int[] gets = {0};
    server.onGet = p -> {
      gets[0]++;
      if (server.calls("tasks/update").size() < 2) {
        return McpJson.standard().parseObject("{\"taskId\":\"" + p.path("taskId").asString()
            + "\",\"status\":\"input_required\",\"pollIntervalMs\":50,\"inputRequests\":"
            + "{\"name\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\","
            + "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
            + "\"string\",\"default\":\"ada\"}}}}}}}");
      }
      return McpJson.standard().parseObject("{\"taskId\":\"" + p.path("taskId").asString()
          + "\",\"status\":\"completed\",\"result\":{\"content\":[{\"type\":\"text\","
          + "\"text\":\"done\"}]}}");
    };
    boolean[] slow = {true};
    server.onUpdate = p -> {
      if (slow[0]) {
        slow[0] = false;
        sleep(12_000);
      }
      return McpJson.object();
    };
    assertThat(client.awaitTask(task, Duration.ofSeconds(30)).content()).hasSize(1);
    List<TaskServer.Received> updates = server.calls("tasks/update");
    assertThat(updates).hasSize(2);
    assertThat(updates.get(1).params().path("inputResponses").path("name")
        .path("content").path("n").asString()).as("the same answer, sent again").isEqualTo("ada");
  }

  @Test
  void inv57_aTaskOperationNeverGoesToAnotherServer() throws Exception {
    TaskServer a = server();
    TaskServer b = server();
    McpClient onA = client(a);
    McpClient onB = client(b);
    Task task = onA.callToolAsTask("job", null, CallOptions.defaults());
    int before = b.received.size();
    assertThatThrownBy(() -> onB.getTask(task)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("belongs to another client");
    assertThatThrownBy(() -> onB.cancelTask(task)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> onB.awaitTask(task, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(b.received).hasSize(before);
    assertThat(a.calls("tasks/get")).isEmpty();
    assertThat(onA.getTask(task).status()).isEqualTo(Task.Status.WORKING);
  }

  private static tools.jackson.databind.node.ObjectNode text(String value) {
    return JsonNodeFactory.instance.objectNode().put("action", "accept").put("v", value);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
