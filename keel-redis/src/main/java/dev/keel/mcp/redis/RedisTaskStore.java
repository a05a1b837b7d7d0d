package dev.keel.mcp.redis;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import dev.keel.mcp.server.spi.TaskStore;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks kept in Redis, so that {@code tasks/get}, {@code tasks/list} and {@code tasks/result}
 * are answered by whichever node a poll reaches; a cancellation or an answer for a task that
 * runs elsewhere goes over the cluster's bus to the node that runs it. Each task remembers that
 * node: a task still {@code working} whose node stopped announcing itself is failed when it is
 * next read, so no task stays {@code working} forever.
 *
 * <p>Keys: {@code ns:t:ID} (the task as JSON, expiring with its ttl), {@code ns:to:OWNER} (the
 * owner's ids by creation) and {@code ns:texp} (every id by expiry, for the sweep). A change is
 * a compare-and-set script, retried when another node changed the task in between.
 */
public final class RedisTaskStore implements TaskStore {

  private static final McpJson JSON = McpJson.standard();

  /** Stores a task unless its owner holds the most tasks (counting only tasks still kept). */
  private static final String CREATE = String.join("\n",
      "local ids = redis.call('ZRANGE', KEYS[2], 0, -1)",
      "for _, id in ipairs(ids) do",
      "  if redis.call('EXISTS', ARGV[5] .. ':t:' .. id) == 0 then",
      "    redis.call('ZREM', KEYS[2], id) end",
      "end",
      "if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end",
      "if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return 0 end",
      "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])",
      "redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])",
      "redis.call('ZADD', KEYS[3], ARGV[8], ARGV[6])",
      "return 1");
  /** Replaces a task only if it is still what the caller read. */
  private static final String SWAP = String.join("\n",
      "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end",
      "redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')",
      "return 1");
  /** Takes the ids whose ttl ended (once: the node that takes an id is the one told). */
  private static final String EXPIRED = String.join("\n",
      "local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 500)",
      "for _, id in ipairs(ids) do",
      "  redis.call('ZREM', KEYS[1], id)",
      "  redis.call('DEL', ARGV[2] .. ':t:' .. id)",
      "end",
      "return ids");

  private final RedisCluster cluster;
  private final String ns;
  private final int maxTasks;
  private final int maxTasksPerOwner;

  private RedisTaskStore(Builder b) {
    this.cluster = b.cluster;
    this.ns = b.cluster.namespace();
    this.maxTasks = b.maxTasks;
    this.maxTasksPerOwner = b.maxTasksPerOwner;
  }

  /** Starts configuring a store on the cluster's Redis connection. */
  public static Builder builder(RedisCluster cluster) {
    return new Builder(cluster);
  }

  @Override
  public boolean create(StoredTask task) {
    Long made = cluster.call(() -> cluster.commands().eval(CREATE, ScriptOutputType.INTEGER,
        new String[] {key(task.taskId()), ns + ":to:" + task.owner(), ns + ":texp"},
        encode(task, cluster.nodeId()), Long.toString(Math.max(1, task.ttlMillis())),
        Long.toString(task.createdAt().toEpochMilli()), Integer.toString(maxTasksPerOwner), ns,
        task.taskId(), Integer.toString(maxTasks),
        Long.toString(task.expiresAt().toEpochMilli())));
    return made != null && made == 1L;
  }

  @Override
  public Optional<StoredTask> get(String taskId) {
    String text = cluster.call(() -> cluster.commands().get(key(taskId)));
    if (text == null) {
      return Optional.empty();
    }
    Stored stored = decode(text);
    if (!stored.task().status().terminal() && !cluster.alive(stored.node())) {
      // the node that ran it died: the task fails now, once, for every node that asks
      return update(taskId, t -> t.finished(TaskStatus.FAILED,
          "The node running the task stopped", null, lostError(), Instant.now()));
    }
    return Optional.of(stored.task());
  }

  private static ObjectNode lostError() {
    return McpJson.object().put("code", dev.keel.mcp.core.ErrorCodes.INTERNAL_ERROR)
        .put("message", "The node running the task stopped before it finished");
  }

  @Override
  public Optional<StoredTask> update(String taskId, UnaryOperator<StoredTask> change) {
    for (int attempt = 0; attempt < 16; attempt++) {
      String before = cluster.call(() -> cluster.commands().get(key(taskId)));
      if (before == null) {
        return Optional.empty();
      }
      Stored stored = decode(before);
      StoredTask changed = change.apply(stored.task());
      String after = encode(changed, stored.node());
      if (after.equals(before)) {
        return Optional.of(changed);
      }
      Long swapped = cluster.call(() -> cluster.commands().eval(SWAP, ScriptOutputType.INTEGER,
          new String[] {key(taskId)}, before, after));
      if (swapped != null && swapped == 1L) {
        return Optional.of(changed);
      }
    }
    throw new IllegalStateException("task " + taskId + " kept changing under this update");
  }

  @Override
  public List<StoredTask> byOwner(String owner) {
    List<String> ids = cluster.call(() -> cluster.commands().zrange(ns + ":to:" + owner, 0, -1));
    List<StoredTask> found = new ArrayList<>();
    for (String id : ids) {
      get(id).ifPresent(found::add);
    }
    return found;
  }

  @Override
  public void remove(String taskId) {
    String text = cluster.call(() -> cluster.commands().get(key(taskId)));
    if (text == null) {
      return;
    }
    String owner = decode(text).task().owner();
    cluster.call(() -> {
      cluster.commands().del(key(taskId));
      cluster.commands().zrem(ns + ":to:" + owner, taskId);
      return cluster.commands().zrem(ns + ":texp", taskId);
    });
  }

  @Override
  public List<String> removeExpired(Instant now) {
    List<Object> ids = cluster.call(() -> cluster.commands().eval(EXPIRED,
        ScriptOutputType.MULTI, new String[] {ns + ":texp"}, Long.toString(now.toEpochMilli()),
        ns));
    List<String> out = new ArrayList<>();
    for (Object id : ids) {
      out.add(String.valueOf(id));
    }
    return out;
  }

  @Override
  public int size() {
    Long n = cluster.call(() -> cluster.commands().zcard(ns + ":texp"));
    return n == null ? 0 : n.intValue();
  }

  private String key(String taskId) {
    return ns + ":t:" + taskId;
  }

  private record Stored(StoredTask task, String node) {}

  static String encode(StoredTask t, String node) {
    ObjectNode o = McpJson.object();
    o.put("taskId", t.taskId()).put("owner", t.owner()).put("node", node)
        .put("modern", t.modern()).put("status", t.status().name())
        .put("createdAt", t.createdAt().toString())
        .put("lastUpdatedAt", t.lastUpdatedAt().toString()).put("ttl", t.ttlMillis())
        .put("poll", t.pollIntervalMillis());
    if (t.sessionId() != null) {
      o.put("sessionId", t.sessionId());
    }
    if (t.statusMessage() != null) {
      o.put("statusMessage", t.statusMessage());
    }
    if (t.inputRequests() != null) {
      o.set("inputRequests", t.inputRequests());
    }
    if (t.result() != null) {
      o.set("result", t.result());
    }
    if (t.error() != null) {
      o.set("error", t.error());
    }
    return o.toString();
  }

  private static Stored decode(String text) {
    JsonNode o = JSON.mapper().readTree(text);
    StoredTask task = new StoredTask(o.path("taskId").asString(), o.path("owner").asString(),
        o.hasNonNull("sessionId") ? o.get("sessionId").asString() : null,
        o.path("modern").asBoolean(), TaskStatus.valueOf(o.path("status").asString()),
        o.hasNonNull("statusMessage") ? o.get("statusMessage").asString() : null,
        Instant.parse(o.path("createdAt").asString()),
        Instant.parse(o.path("lastUpdatedAt").asString()), o.path("ttl").asLong(),
        o.path("poll").asLong(), objectOrNull(o.get("inputRequests")),
        objectOrNull(o.get("result")), objectOrNull(o.get("error")));
    return new Stored(task, o.path("node").asString());
  }

  private static ObjectNode objectOrNull(JsonNode node) {
    return node instanceof ObjectNode o ? o : null;
  }

  /** Configures a {@link RedisTaskStore}. */
  public static final class Builder {
    private final RedisCluster cluster;
    private int maxTasks = 100_000;
    private int maxTasksPerOwner = 1_000;

    private Builder(RedisCluster cluster) {
      this.cluster = Objects.requireNonNull(cluster, "cluster");
    }

    /** Sets the most tasks all nodes keep together (default 100,000). */
    public Builder maxTasks(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxTasks must be positive: " + value);
      }
      this.maxTasks = value;
      return this;
    }

    /** Sets the most tasks one owner may have kept (default 1,000). */
    public Builder maxTasksPerOwner(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxTasksPerOwner must be positive: " + value);
      }
      this.maxTasksPerOwner = value;
      return this;
    }

    /** Returns the store. */
    public RedisTaskStore build() {
      return new RedisTaskStore(this);
    }
  }
}
