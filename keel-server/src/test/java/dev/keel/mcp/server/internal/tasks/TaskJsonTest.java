package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** What a client sees of a task: only what its status has, times to the millisecond. */
class TaskJsonTest {

  static final Instant T0 = Instant.parse("2026-01-01T00:00:00.123456Z");

  static StoredTask task(TaskStatus status, String message, ObjectNode input, ObjectNode result,
      ObjectNode error) {
    return new StoredTask("t1", "alice", null, true, status, message, T0, T0.plusMillis(5),
        60_000, 500, input, result, error);
  }

  @Test
  void aDetailedTaskCarriesOnlyWhatItsStatusHas() {
    ObjectNode input = McpJson.object();
    input.putObject("q").put("method", "elicitation/create");
    ObjectNode result = McpJson.object().put("ok", true);
    ObjectNode error = McpJson.object().put("code", -32603);

    ObjectNode asking = TaskJson.detailed(task(TaskStatus.INPUT_REQUIRED, null, input, null,
        null));
    assertThat(asking.get("inputRequests")).isEqualTo(input);
    assertThat(asking.has("result")).isFalse();

    ObjectNode done = TaskJson.detailed(task(TaskStatus.COMPLETED, null, input, result, error));
    assertThat(done.get("result")).isEqualTo(result);
    assertThat(done.has("inputRequests")).isFalse();
    assertThat(done.has("error")).isFalse();

    ObjectNode failed = TaskJson.detailed(task(TaskStatus.FAILED, "broke", null, result, error));
    assertThat(failed.get("error")).isEqualTo(error);
    assertThat(failed.has("result")).isFalse();
    assertThat(failed.get("statusMessage").asString()).isEqualTo("broke");

    ObjectNode working = TaskJson.detailed(task(TaskStatus.WORKING, null, input, result, error));
    assertThat(working.has("inputRequests") || working.has("result") || working.has("error"))
        .isFalse();
    assertThat(working.has("statusMessage")).isFalse();
    assertThat(TaskJson.detailed(task(TaskStatus.INPUT_REQUIRED, null, null, null, null))
        .has("inputRequests")).isFalse();
    assertThat(TaskJson.detailed(task(TaskStatus.COMPLETED, null, null, null, null))
        .has("result")).isFalse();
    assertThat(TaskJson.detailed(task(TaskStatus.FAILED, null, null, null, null))
        .has("error")).isFalse();
  }

  @Test
  void timesAreIsoToTheMillisecond() {
    ObjectNode node = TaskJson.detailed(task(TaskStatus.WORKING, null, null, null, null));
    assertThat(node.get("createdAt").asString()).isEqualTo("2026-01-01T00:00:00.123Z");
    assertThat(node.get("lastUpdatedAt").asString()).isEqualTo("2026-01-01T00:00:00.128Z");
    assertThat(node.get("taskId").asString()).isEqualTo("t1");
    assertThat(node.get("status").asString()).isEqualTo("working");
  }
}
