package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A legacy task's outlet: requests to the client wait (bounded) for a {@code tasks/result} to
 * carry them, notifications with nobody listening are dropped, and every message names its task.
 */
class TaskOutboxTest {

  /** A stream that takes messages while open. */
  static final class Stream implements dev.keel.mcp.server.transport.MessageStream {
    final List<JsonRpcMessage> got = new ArrayList<>();
    boolean open = true;
    int room = Integer.MAX_VALUE;

    @Override
    public boolean send(JsonRpcMessage message) {
      if (!open || got.size() >= room) {
        return false;
      }
      got.add(message);
      return true;
    }
  }

  static JsonRpcRequest ask(long id) {
    return new JsonRpcRequest(RequestId.of(id), "elicitation/create",
        McpJson.object().put("message", "q" + id));
  }

  static String taskOf(JsonRpcMessage m) {
    ObjectNode params = m instanceof JsonRpcRequest r ? r.params()
        : ((JsonRpcNotification) m).params();
    return params.get("_meta").get(MetaKeys.RELATED_TASK).get("taskId").asString();
  }

  @Test
  void requestsAndNotificationsNameTheirTaskAndKeepTheirOwnMeta() {
    TaskOutbox box = new TaskOutbox("t1");
    Stream s = new Stream();
    box.attach(s);
    ObjectNode params = McpJson.object().put("progress", 1);
    params.putObject("_meta").put("progressToken", "p");
    assertThat(box.send(new JsonRpcNotification("notifications/progress", params))).isTrue();
    assertThat(box.send(new JsonRpcRequest(RequestId.of(1), "roots/list", null))).isTrue();
    assertThat(s.got).hasSize(2);
    assertThat(taskOf(s.got.get(0))).isEqualTo("t1");
    assertThat(((JsonRpcNotification) s.got.get(0)).params().get("_meta").get("progressToken")
        .asString()).isEqualTo("p");
    assertThat(((JsonRpcNotification) s.got.get(0)).params().get("progress").asInt()).isEqualTo(1);
    assertThat(taskOf(s.got.get(1))).isEqualTo("t1");
    assertThat(((JsonRpcRequest) s.got.get(1)).method()).isEqualTo("roots/list");
    // the caller's params are not changed
    assertThat(params.get("_meta").has(MetaKeys.RELATED_TASK)).isFalse();
    // a response carries no params to tag and passes as it is
    JsonRpcResponse response = new JsonRpcResponse(RequestId.of(9), McpJson.object());
    assertThat(box.send(response)).isTrue();
    assertThat(s.got.get(2)).isSameAs(response);
  }

  @Test
  void withNobodyListeningRequestsWaitUpToTheBoundAndNotificationsAreDropped() {
    TaskOutbox box = new TaskOutbox("t1");
    assertThat(box.send(new JsonRpcNotification("notifications/message", null))).isFalse();
    for (int i = 0; i < TaskOutbox.MAX_QUEUED; i++) {
      assertThat(box.send(ask(i))).isTrue();
    }
    assertThat(box.send(ask(999))).isFalse();
    Stream s = new Stream();
    box.attach(s);
    assertThat(s.got).hasSize(TaskOutbox.MAX_QUEUED);
    assertThat(((JsonRpcRequest) s.got.get(0)).id()).isEqualTo(RequestId.of(0));
    assertThat(((JsonRpcRequest) s.got.get(TaskOutbox.MAX_QUEUED - 1)).id())
        .isEqualTo(RequestId.of(TaskOutbox.MAX_QUEUED - 1));
    assertThat(s.got).allMatch(m -> taskOf(m).equals("t1"));
  }

  @Test
  void aStreamThatStopsTakingLeavesTheRestQueuedForTheNext() {
    TaskOutbox box = new TaskOutbox("t1");
    box.send(ask(1));
    box.send(ask(2));
    box.send(ask(3));
    Stream first = new Stream();
    first.room = 1;
    box.attach(first);
    assertThat(first.got).hasSize(1);
    first.open = false;
    // the attached stream is gone: a request goes to the queue behind the two waiting
    assertThat(box.send(ask(4))).isTrue();
    Stream second = new Stream();
    box.attach(second);
    assertThat(second.got).extracting(m -> ((JsonRpcRequest) m).id())
        .containsExactly(RequestId.of(2), RequestId.of(3), RequestId.of(4));
  }

  @Test
  void detachingAnOlderStreamKeepsTheNewerOne() {
    TaskOutbox box = new TaskOutbox("t1");
    Stream older = new Stream();
    Stream newer = new Stream();
    box.attach(older);
    box.attach(newer);
    box.detach(older);
    assertThat(box.send(ask(1))).isTrue();
    assertThat(newer.got).hasSize(1);
    assertThat(older.got).isEmpty();
    box.detach(newer);
    assertThat(box.send(new JsonRpcNotification("notifications/message", null))).isFalse();
    assertThat(newer.got).hasSize(1);
  }

  @Test
  void everyStepReleasesTheOutboxLock() throws Exception {
    TaskOutbox box = new TaskOutbox("t1");
    Stream s = new Stream();
    box.send(ask(1));
    box.attach(s);
    box.send(ask(2));
    box.detach(s);
    box.send(new JsonRpcNotification("notifications/message", null));
    // another thread takes the same lock: it would wait forever on a lock left held
    java.util.concurrent.CompletableFuture.runAsync(() -> box.attach(new Stream()))
        .get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(s.got).hasSize(2);
  }
}
