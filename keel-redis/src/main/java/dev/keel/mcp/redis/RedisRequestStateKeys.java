package dev.keel.mcp.redis;

import dev.keel.mcp.server.RequestStateKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code requestState} key ring kept in Redis, so that every node seals and opens with the
 * same keys and a rotation on one node reaches the others: the newest key seals, the
 * {@link Builder#keep} newest open. The first node to start with an empty ring creates its first
 * key (atomically, so two nodes starting together agree). A node re-reads the ring every
 * {@link Builder#refreshInterval}, and at once (at most every 200 ms) when a client presents a
 * state under a key it has not seen.
 *
 * <p>The keys are secrets: whoever reads them can forge any principal's state. Redis must be
 * reachable only by the nodes (as it must anyway for sessions). When Redis cannot be reached,
 * the last keys read keep working; a node that never read them cannot start. When Redis comes
 * back empty (no persistence), the first node to look puts back the keys it holds.
 *
 * <pre>{@code
 * RedisRequestStateKeys keys = RedisRequestStateKeys.builder("redis://10.0.0.5:6379").build();
 * McpServer server = McpServer.builder().requestStateKeys(keys) ... .build();
 * keys.rotate(); // on one node, now and then
 * }</pre>
 */
public final class RedisRequestStateKeys implements RequestStateKeys, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RedisRequestStateKeys.class);
  private static final long MIN_REFRESH_NANOS = Duration.ofMillis(200).toNanos();

  /** Fills an empty ring with the given keys (newest first); returns the ring. */
  private static final String SEED = "if redis.call('LLEN', KEYS[1]) == 0 then "
      + "redis.call('RPUSH', KEYS[1], unpack(ARGV)) end return redis.call('LRANGE', KEYS[1], 0, -1)";
  /** Puts a new sealing key in front and drops the oldest beyond the limit; returns the ring. */
  private static final String ROTATE = "redis.call('LPUSH', KEYS[1], ARGV[1]) "
      + "redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1) "
      + "return redis.call('LRANGE', KEYS[1], 0, -1)";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final String key;
  private final int keep;
  private final long refreshNanos;
  private volatile Ring ring;
  private final java.util.concurrent.atomic.AtomicLong lastLook =
      new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - MIN_REFRESH_NANOS - 1);

  /** What was read, and when; {@code keys} keeps its identity while the ring is unchanged. */
  private record Ring(List<String> encoded, List<byte[]> keys, long readAt) {}

  private RedisRequestStateKeys(Builder b) {
    b.uri.setTimeout(b.timeout);
    this.key = b.namespace + ":mrtr:keys";
    this.keep = b.keep;
    this.refreshNanos = b.refreshInterval.toNanos();
    this.client = RedisClient.create(b.uri);
    try {
      this.connection = client.connect();
      this.connection.setTimeout(b.timeout);
      this.ring = adopt(connection.sync().eval(SEED, ScriptOutputType.MULTI,
          new String[] {key}, newKey()));
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw e;
    }
  }

  /** Starts a ring in the Redis at {@code uri} ({@code redis://host:port}). */
  public static Builder builder(String uri) {
    return new Builder(RedisURI.create(uri));
  }

  @Override
  public List<byte[]> keys() {
    Ring r = ring;
    if (System.nanoTime() - r.readAt() > refreshNanos) {
      r = read();
    }
    return r.keys();
  }

  @Override
  public List<byte[]> refresh() {
    // Made-up key ids cost at most one read of Redis per 200 ms, whoever sends them.
    long now = System.nanoTime();
    long last = lastLook.get();
    if (now - last > MIN_REFRESH_NANOS && lastLook.compareAndSet(last, now)) {
      return read().keys();
    }
    return ring.keys();
  }

  /**
   * Puts a new random key in front: from now on every node seals with it (each as soon as it
   * reads the ring), and the oldest key beyond {@link Builder#keep} stops opening.
   *
   * @throws RedisException when Redis cannot be reached
   */
  public void rotate() {
    ring = adopt(connection.sync().eval(ROTATE, ScriptOutputType.MULTI, new String[] {key},
        newKey(), Integer.toString(keep)));
  }

  private Ring read() {
    try {
      List<String> stored = connection.sync().lrange(key, 0, -1);
      if (stored.isEmpty()) {
        // Redis lost its data (a restart without persistence): put back what this node holds,
        // so that the states in flight stay valid everywhere
        stored = connection.sync().eval(SEED, ScriptOutputType.MULTI, new String[] {key},
            ring.encoded().toArray(String[]::new));
      }
      return ring = adopt(stored);
    } catch (RedisException e) {
      // the keys last read still seal and open; try again at the next interval
      LOG.warn("cannot read the requestState key ring from Redis: {}", e.getMessage());
      Ring stale = ring;
      return ring = new Ring(stale.encoded(), stale.keys(), System.nanoTime());
    }
  }

  private Ring adopt(List<?> values) {
    List<String> encoded = new ArrayList<>();
    for (Object v : values) {
      encoded.add(String.valueOf(v));
    }
    Ring known = ring;
    if (known != null && known.encoded().equals(encoded)) {
      return new Ring(known.encoded(), known.keys(), System.nanoTime());
    }
    if (encoded.isEmpty()) {
      throw new IllegalStateException("the requestState key ring " + key + " is empty");
    }
    List<byte[]> keys = new ArrayList<>();
    for (String e : encoded) {
      keys.add(Base64.getDecoder().decode(e));
    }
    return new Ring(List.copyOf(encoded), List.copyOf(keys), System.nanoTime());
  }

  private static String newKey() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Closes the connection to Redis. */
  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /** Configures {@link RedisRequestStateKeys}. */
  public static final class Builder {
    private final RedisURI uri;
    private String namespace = "keel";
    private int keep = 3;
    private Duration refreshInterval = Duration.ofSeconds(5);
    private Duration timeout = Duration.ofSeconds(1);

    private Builder(RedisURI uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** Sets the prefix of the Redis key (default {@code keel}): one ring per deployment. */
    public Builder namespace(String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("namespace must not be blank");
      }
      this.namespace = value;
      return this;
    }

    /** Sets how many keys open states (default 3): the sealing one and the newest retired. */
    public Builder keep(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("keep must be at least 1: " + value);
      }
      this.keep = value;
      return this;
    }

    /** Sets how often a node re-reads the ring (default 5 s). */
    public Builder refreshInterval(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("refreshInterval must not be negative: " + value);
      }
      this.refreshInterval = value;
      return this;
    }

    /** Sets the timeout of each Redis command (default 1 s). */
    public Builder timeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /**
     * Connects and reads the ring, creating its first key when it is empty.
     *
     * @throws RedisException when Redis cannot be reached
     */
    public RedisRequestStateKeys build() {
      return new RedisRequestStateKeys(this);
    }
  }
}
