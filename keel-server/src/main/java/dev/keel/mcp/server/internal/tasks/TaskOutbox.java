package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.server.transport.MessageStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where a legacy task's messages to the client go: the stream of a {@code tasks/result} that
 * waits for the task (2025-11-25: "the requestor SHOULD call tasks/result", and the receiver
 * sends its requests on that stream). Every message is tagged with the task in
 * {@code _meta["io.modelcontextprotocol/related-task"]}.
 *
 * <p>A request to the client sent while no {@code tasks/result} waits is queued (bounded) and
 * goes out when one attaches: the task is {@code input_required} meanwhile, and the client is
 * told to call {@code tasks/result} on seeing that. Notifications are not queued: progress and
 * logs with nobody listening are dropped.
 */
public final class TaskOutbox implements MessageStream {

  /** The most requests to the client one task queues while nobody listens. */
  static final int MAX_QUEUED = 64;

  private final String taskId;
  private final ReentrantLock lock = new ReentrantLock();
  private final Deque<JsonRpcMessage> queued = new ArrayDeque<>();
  private MessageStream current;

  TaskOutbox(String taskId) {
    this.taskId = taskId;
  }

  @Override
  public boolean send(JsonRpcMessage message) {
    JsonRpcMessage tagged = tag(message);
    lock.lock();
    try {
      if (current != null && current.send(tagged)) {
        return true;
      }
      if (tagged instanceof JsonRpcRequest && queued.size() < MAX_QUEUED) {
        queued.add(tagged);
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Makes {@code stream} (a waiting {@code tasks/result}) the outlet, sending what is queued. */
  public void attach(MessageStream stream) {
    lock.lock();
    try {
      current = stream;
      while (!queued.isEmpty() && stream.send(queued.peek())) {
        queued.poll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Stops using {@code stream}; a newer outlet stays. */
  public void detach(MessageStream stream) {
    lock.lock();
    try {
      if (current == stream) {
        current = null;
      }
    } finally {
      lock.unlock();
    }
  }

  private JsonRpcMessage tag(JsonRpcMessage message) {
    if (message instanceof JsonRpcRequest r) {
      return new JsonRpcRequest(r.id(), r.method(), tagged(r.params()));
    }
    if (message instanceof JsonRpcNotification n) {
      return new JsonRpcNotification(n.method(), tagged(n.params()));
    }
    return message;
  }

  private ObjectNode tagged(ObjectNode params) {
    ObjectNode copy = params == null ? McpJson.object() : params.deepCopy();
    JsonNode meta = copy.get("_meta");
    ObjectNode m = meta instanceof ObjectNode o ? o : copy.putObject("_meta");
    m.set(MetaKeys.RELATED_TASK, TaskJson.related(taskId));
    return copy;
  }
}
