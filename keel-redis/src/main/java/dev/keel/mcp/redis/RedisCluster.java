package dev.keel.mcp.redis;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.ClusterBus;
import dev.keel.mcp.server.cluster.ClusterUnavailableException;
import dev.keel.mcp.server.cluster.SessionDirectory;
import dev.keel.mcp.server.cluster.SessionRecord;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The nodes of one Keel server sharing a Redis: each node announces its address under a key
 * that lapses three heartbeats after it stops ({@link Builder#heartbeat}), legacy sessions are
 * listed in hashes with their owner and node, the session limits are counted in sorted sets by
 * last renewal, and the bus is Redis pub/sub. Every directory change is one Lua script, so it is
 * atomic however many nodes race.
 *
 * <pre>{@code
 * RedisCluster cluster = RedisCluster.builder("redis://10.0.0.5:6379").build();
 * McpServer server = McpServer.builder().cluster(cluster)
 *     .taskStore(RedisTaskStore.builder(cluster).build())
 *     .requestStateKeys(RedisRequestStateKeys.builder("redis://10.0.0.5:6379").build())
 *     ... .build();
 * }</pre>
 *
 * <p>Commands fail at once while the connection is down and after {@link Builder#timeout}
 * otherwise, as {@link ClusterUnavailableException}; the connection comes back by itself when
 * Redis does. Keys: {@code ns:node:ID}, {@code ns:s:ID}, {@code ns:sessions}, {@code ns:p:OWNER},
 * channels {@code ns:bus:TOPIC}. One Redis (or a primary with replicas), not Redis Cluster: the
 * scripts touch keys of several slots.
 */
public final class RedisCluster implements Cluster, SessionDirectory, ClusterBus {

  private static final Logger LOG = LoggerFactory.getLogger(RedisCluster.class);
  private static final McpJson JSON = McpJson.standard();

  /** Lists a session unless it exists or a limit is reached; lapsed listings do not count. */
  private static final String CLAIM = String.join("\n",
      "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end",
      "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])",
      "redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])",
      "if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end",
      "if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 0 end",
      "redis.call('HSET', KEYS[1], 'owner', ARGV[6], 'node', ARGV[7], 'version', ARGV[8],",
      "  'caps', ARGV[9], 'info', ARGV[10])",
      "redis.call('PEXPIRE', KEYS[1], ARGV[5])",
      "redis.call('ZADD', KEYS[2], ARGV[1], ARGV[11])",
      "redis.call('ZADD', KEYS[3], ARGV[1], ARGV[11])",
      "return 1");
  /**
   * Renews the listings this node holds (ttl, place in the counts), lists again those the store
   * lost, and returns the ids another node holds now. ARGV: now, ttl, ns, node, then per
   * session (in the order of KEYS) id, owner, version, caps, info.
   */
  private static final String RENEW = String.join("\n",
      "local taken = {}",
      "for i, key in ipairs(KEYS) do",
      "  local base = 4 + (i - 1) * 5",
      "  local id, owner = ARGV[base + 1], ARGV[base + 2]",
      "  local node = redis.call('HGET', key, 'node')",
      "  if node and node ~= ARGV[4] then",
      "    table.insert(taken, id)",
      "  else",
      "    if not node then",
      "      redis.call('HSET', key, 'owner', owner, 'node', ARGV[4], 'version', ARGV[base + 3],",
      "        'caps', ARGV[base + 4], 'info', ARGV[base + 5])",
      "    end",
      "    redis.call('PEXPIRE', key, ARGV[2])",
      "    redis.call('ZADD', ARGV[3] .. ':sessions', ARGV[1], id)",
      "    redis.call('ZADD', ARGV[3] .. ':p:' .. owner, ARGV[1], id)",
      "  end",
      "end",
      "return taken");
  /** Moves a session to another node only if it is still where the caller saw it. */
  private static final String MOVE = String.join("\n",
      "if redis.call('HGET', KEYS[1], 'node') == ARGV[1] then",
      "  redis.call('HSET', KEYS[1], 'node', ARGV[2]) return 1 end",
      "return 0");
  /** Removes a listing only while it is this owner's and held by this node. */
  private static final String REMOVE = String.join("\n",
      "if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end",
      "if redis.call('HGET', KEYS[1], 'node') ~= ARGV[3] then return 0 end",
      "redis.call('DEL', KEYS[1])",
      "redis.call('ZREM', KEYS[2], ARGV[2])",
      "redis.call('ZREM', KEYS[3], ARGV[2])",
      "return 1");

  private final io.lettuce.core.resource.ClientResources resources;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final StatefulRedisPubSubConnection<String, String> pubsub;
  private final String ns;
  private final String nodeId;
  private final long heartbeatMillis;
  private final long sessionTtlMillis;
  private final long lapseMillis;
  private final ScheduledExecutorService beats;
  /** Bus listeners run here, in order, never on Lettuce's event loop. */
  private final ExecutorService deliveries;
  private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
  private final Map<String, CachedAddress> addresses = new ConcurrentHashMap<>();
  private final AtomicReference<URI> address = new AtomicReference<>();
  private final AtomicReference<String> problem = new AtomicReference<>();

  private record CachedAddress(Optional<URI> uri, long readAt) {}

  private RedisCluster(Builder b) {
    b.uri.setTimeout(b.timeout);
    this.ns = b.namespace;
    this.heartbeatMillis = b.heartbeat.toMillis();
    this.sessionTtlMillis = b.sessionTtl.toMillis();
    this.lapseMillis = b.lapse.toMillis();
    byte[] random = new byte[8];
    new SecureRandom().nextBytes(random);
    this.nodeId = b.nodeId != null ? b.nodeId : "n-" + HexFormat.of().formatHex(random);
    // reconnect attempts back off to 2 s at most (Lettuce's default grows to 30 s): a Redis
    // that restarts is back in use within a couple of seconds
    this.resources = io.lettuce.core.resource.DefaultClientResources.builder()
        .reconnectDelay(io.lettuce.core.resource.Delay.exponential(Duration.ofMillis(100),
            Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS)).build();
    this.client = RedisClient.create(resources, b.uri);
    // a command while the connection is down fails at once, rather than waiting in a queue
    // for a Redis that may not come back: the caller answers 503 now
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .autoReconnect(true).build());
    try {
      this.connection = client.connect();
      this.connection.setTimeout(b.timeout);
      this.connection.sync().ping();
      this.pubsub = client.connectPubSub();
      this.pubsub.setTimeout(b.timeout);
      this.pubsub.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          deliver(channel, message);
        }
      });
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
    this.beats = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "keel-redis-beat"));
    this.deliveries = Executors.newSingleThreadExecutor(r -> daemon(r, "keel-redis-bus"));
    beats.scheduleWithFixedDelay(this::beat, heartbeatMillis, heartbeatMillis,
        TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Starts configuring a cluster over the Redis at {@code uri} ({@code redis://host:port}). */
  public static Builder builder(String uri) {
    return new Builder(RedisURI.create(uri));
  }

  @Override
  public String nodeId() {
    return nodeId;
  }

  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public void join(URI endpoint) {
    address.set(Objects.requireNonNull(endpoint, "endpoint"));
    call(() -> announce(endpoint));
  }

  private String announce(URI endpoint) {
    return connection.sync().set(ns + ":node:" + nodeId, endpoint.toString(),
        SetArgs.Builder.px(3 * heartbeatMillis));
  }

  private void beat() {
    try {
      URI mine = address.get();
      if (mine != null) {
        announce(mine);
      } else {
        connection.sync().ping();
      }
      if (problem.getAndSet(null) != null) {
        LOG.info("Redis is reachable again");
      }
    } catch (RedisException e) {
      if (problem.getAndSet("Redis cannot be reached: " + e.getMessage()) == null) {
        LOG.warn("Redis cannot be reached: {}", e.getMessage());
      }
    }
  }

  @Override
  public Optional<URI> addressOf(String node) {
    URI mine = address.get();
    if (node.equals(nodeId) && mine != null) {
      return Optional.of(mine);
    }
    // a dead node is noticed within a heartbeat: the cache is shorter than the announcement
    CachedAddress cached = addresses.get(node);
    long now = System.nanoTime();
    if (cached != null && now - cached.readAt() < TimeUnit.MILLISECONDS.toNanos(heartbeatMillis)) {
      return cached.uri();
    }
    String value = call(() -> connection.sync().get(ns + ":node:" + node));
    Optional<URI> found = value == null ? Optional.empty() : Optional.of(URI.create(value));
    if (addresses.size() > 1024) {
      addresses.clear();
    }
    addresses.put(node, new CachedAddress(found, now));
    return found;
  }

  /** Returns true when {@code node} is this one or announced itself within three heartbeats. */
  boolean alive(String node) {
    return node.equals(nodeId) || addressOf(node).isPresent()
        || call(() -> connection.sync().exists(ns + ":node:" + node)) > 0;
  }

  @Override
  public SessionDirectory sessions() {
    return this;
  }

  @Override
  public ClusterBus bus() {
    return this;
  }

  @Override
  public Optional<String> problem() {
    return Optional.ofNullable(problem.get());
  }

  @Override
  public Claim claim(SessionRecord record, int maxSessions, int maxPerOwner) {
    long now = System.currentTimeMillis();
    Long claimed = call(() -> connection.sync().eval(CLAIM, ScriptOutputType.INTEGER,
        new String[] {sessionKey(record.id()), ns + ":sessions", ns + ":p:" + record.owner()},
        Long.toString(now), Long.toString(now - lapseMillis), Integer.toString(maxSessions),
        Integer.toString(maxPerOwner), Long.toString(sessionTtlMillis), record.owner(),
        record.node(), record.protocolVersion(), text(record.clientCapabilities()),
        text(record.clientInfo()), record.id()));
    return claimed != null && claimed == 1L ? Claim.CLAIMED : Claim.REFUSED;
  }

  @Override
  public Optional<SessionRecord> find(String id) {
    Map<String, String> fields = call(() -> connection.sync().hgetall(sessionKey(id)));
    if (fields == null || fields.get("owner") == null || fields.get("node") == null
        || fields.get("version") == null) {
      return Optional.empty();
    }
    return Optional.of(new SessionRecord(id, fields.get("owner"), fields.get("node"),
        fields.get("version"), object(fields.get("caps")), object(fields.get("info"))));
  }

  @Override
  public boolean move(String id, String fromNode, String toNode) {
    Long moved = call(() -> connection.sync().eval(MOVE, ScriptOutputType.INTEGER,
        new String[] {sessionKey(id)}, fromNode, toNode));
    return moved != null && moved == 1L;
  }

  @Override
  public java.util.Set<String> renew(Collection<SessionRecord> held) {
    java.util.Set<String> taken = new java.util.HashSet<>();
    String now = Long.toString(System.currentTimeMillis());
    List<SessionRecord> batch = new ArrayList<>();
    for (SessionRecord r : held) {
      batch.add(r);
      if (batch.size() == 200) {
        taken.addAll(renewBatch(batch, now));
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      taken.addAll(renewBatch(batch, now));
    }
    return taken;
  }

  private List<String> renewBatch(List<SessionRecord> records, String now) {
    List<String> keys = new ArrayList<>();
    List<String> args = new ArrayList<>(List.of(now, Long.toString(sessionTtlMillis), ns,
        nodeId));
    for (SessionRecord r : records) {
      keys.add(sessionKey(r.id()));
      args.addAll(List.of(r.id(), r.owner(), r.protocolVersion(), text(r.clientCapabilities()),
          text(r.clientInfo())));
    }
    List<Object> taken = call(() -> connection.sync().eval(RENEW, ScriptOutputType.MULTI,
        keys.toArray(String[]::new), args.toArray(String[]::new)));
    List<String> ids = new ArrayList<>();
    for (Object id : taken) {
      ids.add(String.valueOf(id));
    }
    return ids;
  }

  @Override
  public void remove(String id, String owner) {
    call(() -> connection.sync().eval(REMOVE, ScriptOutputType.INTEGER,
        new String[] {sessionKey(id), ns + ":sessions", ns + ":p:" + owner}, owner, id,
        nodeId));
  }

  @Override
  public void publish(String topic, String message) {
    // not awaited: a publish is at most once anyway, and the caller (a handler telling the
    // other nodes a resource changed) must not wait on Redis
    connection.async().publish(ns + ":bus:" + topic, message).exceptionally(e -> {
      LOG.warn("could not publish on {}: {}", topic, e.toString());
      return null;
    });
  }

  @Override
  public void subscribe(String topic, Consumer<String> listener) {
    String channel = ns + ":bus:" + topic;
    boolean first = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>())
        .isEmpty();
    listeners.get(channel).add(listener);
    if (first) {
      call(() -> {
        pubsub.sync().subscribe(channel);
        return null;
      });
    }
  }

  private void deliver(String channel, String message) {
    List<Consumer<String>> targets = listeners.get(channel);
    if (targets == null) {
      return;
    }
    deliveries.execute(() -> {
      for (Consumer<String> l : targets) {
        try {
          l.accept(message);
        } catch (RuntimeException e) {
          LOG.warn("a listener of {} failed", channel, e);
        }
      }
    });
  }

  /** Runs one Redis command (or script), turning Redis's failures into the cluster's. */
  <T> T call(Supplier<T> command) {
    try {
      return command.get();
    } catch (RedisException e) {
      throw new ClusterUnavailableException("Redis cannot be reached: " + e.getMessage(), e);
    }
  }

  /** Returns the synchronous commands (for the task store on the same connection). */
  RedisCommands<String, String> commands() {
    return connection.sync();
  }

  /** Returns the key prefix. */
  String namespace() {
    return ns;
  }

  private String sessionKey(String id) {
    return ns + ":s:" + id;
  }

  private static String text(ObjectNode node) {
    return node == null ? "" : node.toString();
  }

  private static ObjectNode object(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    JsonNode node = JSON.mapper().readTree(text);
    return node instanceof ObjectNode o ? o : null;
  }

  @Override
  public void close() {
    beats.shutdownNow();
    try {
      if (address.get() != null) {
        connection.sync().del(ns + ":node:" + nodeId);
      }
    } catch (RedisException e) {
      // it lapses by itself
    }
    deliveries.shutdownNow();
    pubsub.close();
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  /** Configures a {@link RedisCluster}. */
  public static final class Builder {
    private final RedisURI uri;
    private String namespace = "keel";
    private String nodeId;
    // half a second: a command Redis answers in microseconds, and a request that needs Redis
    // while it is gone must get its 503 within a second, connection loss unnoticed or not
    private Duration timeout = Duration.ofMillis(500);
    private Duration heartbeat = Duration.ofSeconds(1);
    private Duration sessionTtl = Duration.ofMinutes(30);
    private Duration lapse = Duration.ofMinutes(1);

    private Builder(RedisURI uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** Sets the prefix of every key and channel (default {@code keel}): one per deployment. */
    public Builder namespace(String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("namespace must not be blank");
      }
      this.namespace = value;
      return this;
    }

    /** Sets this node's id (default: random per process; never reuse one). */
    public Builder nodeId(String value) {
      if (value == null || !value.matches("[A-Za-z0-9_.-]{1,64}")) {
        throw new IllegalArgumentException("nodeId must be 1 to 64 of [A-Za-z0-9_.-]: " + value);
      }
      this.nodeId = value;
      return this;
    }

    /** Sets the timeout of each Redis command (default 500 ms). */
    public Builder timeout(Duration value) {
      this.timeout = positive(value, "timeout");
      return this;
    }

    /**
     * Sets how often the node announces itself (default 1 s); three missed announcements and the
     * other nodes take its sessions over.
     */
    public Builder heartbeat(Duration value) {
      this.heartbeat = positive(value, "heartbeat");
      return this;
    }

    /**
     * Sets how long a session's listing outlives its last renewal (default 30 min, as the
     * server's idle timeout): the window in which another node can take over the session of a
     * node that died.
     */
    public Builder sessionTtl(Duration value) {
      this.sessionTtl = positive(value, "sessionTtl");
      return this;
    }

    /**
     * Sets how long after its last renewal a session stops counting towards the cluster's
     * limits (default 1 min; nodes renew every 10 s at most).
     */
    public Builder lapse(Duration value) {
      this.lapse = positive(value, "lapse");
      return this;
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }

    /**
     * Connects (two connections: commands and the bus) and starts the heartbeat.
     *
     * @throws RedisException when Redis cannot be reached
     */
    public RedisCluster build() {
      return new RedisCluster(this);
    }
  }
}
