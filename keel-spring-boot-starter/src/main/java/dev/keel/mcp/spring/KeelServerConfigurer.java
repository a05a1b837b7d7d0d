package dev.keel.mcp.spring;

import dev.keel.mcp.core.jsonrpc.JsonLimits;
import dev.keel.mcp.server.McpServer;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Applies what the starter puts into a server to any {@link McpServer.Builder}: the
 * {@code keel.server.*} properties, then every bean with Keel-annotated methods (through
 * {@link McpServer.Builder#toolsFrom}), then every {@link KeelServerCustomizer} in order. The
 * starter's own server is {@link #build()}; an application that builds its server itself (its
 * own {@code McpServer} bean, which the starter then serves) passes {@link #configure} to its
 * builder so that the properties, the beans and the metrics observer still apply.
 *
 * <pre>{@code
 * @Bean
 * McpServer fixtures(KeelServerConfigurer keel) {
 *   return FixtureServer.create(keel::configure);
 * }
 * }</pre>
 *
 * <p>Thread-safe; each call configures the builder it is given and nothing else.
 */
public final class KeelServerConfigurer {

  private final KeelProperties.Server properties;
  private final String defaultName;
  private final Supplier<List<Object>> annotatedBeans;
  private final Supplier<List<KeelServerCustomizer>> customizers;

  KeelServerConfigurer(KeelProperties.Server properties, String defaultName,
      Supplier<List<Object>> annotatedBeans, Supplier<List<KeelServerCustomizer>> customizers) {
    this.properties = Objects.requireNonNull(properties, "properties");
    this.defaultName = defaultName;
    this.annotatedBeans = annotatedBeans;
    this.customizers = customizers;
  }

  /** Returns a new server: a fresh builder, {@link #configure}d, built. */
  public McpServer build() {
    McpServer.Builder builder = McpServer.builder();
    configure(builder);
    return builder.build();
  }

  /**
   * Applies the properties, the annotated beans and the customizers to {@code builder}.
   *
   * @throws IllegalArgumentException when a property is out of range (the message names it) or
   *     an annotated bean has a method Keel cannot turn into a tool
   */
  public void configure(McpServer.Builder builder) {
    Objects.requireNonNull(builder, "builder");
    applyProperties(builder);
    for (Object bean : annotatedBeans.get()) {
      builder.toolsFrom(bean);
    }
    for (KeelServerCustomizer customizer : customizers.get()) {
      customizer.customize(builder);
    }
  }

  private void applyProperties(McpServer.Builder b) {
    KeelProperties.Server p = properties;
    String name = p.name() != null ? p.name() : defaultName;
    if (name != null && !name.isBlank()) {
      b.name(name);
    }
    if (p.version() != null) {
      b.version(p.version());
    }
    if (p.title() != null) {
      b.title(p.title());
    }
    if (p.instructions() != null) {
      b.instructions(p.instructions());
    }
    if (p.pageSize() != null) {
      b.pageSize(p.pageSize());
    }
    if (p.handlerTimeout() != null) {
      b.handlerTimeout(p.handlerTimeout());
    }
    if (p.clientRequestTimeout() != null) {
      b.clientRequestTimeout(p.clientRequestTimeout());
    }
    if (p.defaultLogLevel() != null) {
      b.defaultLogLevel(p.defaultLogLevel());
    }
    if (p.maxInFlightRequests() != null) {
      b.maxInFlightRequests(p.maxInFlightRequests());
    }
    if (p.notificationChannels() != null) {
      b.notificationChannels(p.notificationChannels());
    }
    if (p.maxMessageSize() != null || p.maxJsonDepth() != null) {
      JsonLimits limits = JsonLimits.defaults();
      if (p.maxMessageSize() != null) {
        limits = limits.withMaxBytes(bytes(p.maxMessageSize(), "keel.server.max-message-size"));
      }
      if (p.maxJsonDepth() != null) {
        limits = limits.withMaxDepth(p.maxJsonDepth());
      }
      b.jsonLimits(limits);
    }
    applySessions(b, p.sessions());
    applyModern(b, p.modern());
    applyTasks(b, p.tasks());
  }

  private static void applySessions(McpServer.Builder b, KeelProperties.Sessions s) {
    if (s.max() != null) {
      b.maxSessions(s.max());
    }
    if (s.maxPerPrincipal() != null) {
      b.maxSessionsPerPrincipal(s.maxPerPrincipal());
    }
    if (s.idleTimeout() != null) {
      b.sessionIdleTimeout(s.idleTimeout());
    }
  }

  private static void applyModern(McpServer.Builder b, KeelProperties.Modern m) {
    if (m.requestStateKey() != null && !m.requestStateKey().isBlank()) {
      byte[] key;
      try {
        key = Base64.getDecoder().decode(m.requestStateKey().strip());
      } catch (IllegalArgumentException e) {
        // The message names the property only: the value is a secret.
        throw new IllegalArgumentException("keel.server.modern.request-state-key is not Base64");
      }
      b.requestStateKey(key);
    }
    if (m.requestStateTtl() != null) {
      b.requestStateTtl(m.requestStateTtl());
    }
    if (m.maxInputRounds() != null) {
      b.maxInputRounds(m.maxInputRounds());
    }
    if (m.maxSubscriptionsPerPrincipal() != null) {
      b.maxSubscriptionsPerPrincipal(m.maxSubscriptionsPerPrincipal());
    }
  }

  private static void applyTasks(McpServer.Builder b, KeelProperties.Tasks t) {
    if (t.max() != null) {
      b.maxTasks(t.max());
    }
    if (t.maxPerPrincipal() != null) {
      b.maxTasksPerPrincipal(t.maxPerPrincipal());
    }
    if (t.maxActivePerPrincipal() != null) {
      b.maxActiveTasksPerPrincipal(t.maxActivePerPrincipal());
    }
    if (t.defaultTtl() != null || t.maxTtl() != null) {
      // The builder takes both at once; the one left unset keeps its default.
      b.taskTtl(t.defaultTtl() != null ? t.defaultTtl() : java.time.Duration.ofMinutes(30),
          t.maxTtl() != null ? t.maxTtl() : java.time.Duration.ofHours(24));
    }
    if (t.pollInterval() != null) {
      b.taskPollInterval(t.pollInterval());
    }
  }

  static int bytes(org.springframework.util.unit.DataSize size, String property) {
    long bytes = size.toBytes();
    if (bytes <= 0 || bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(property + " must be between 1 byte and 2 GiB: "
          + size);
    }
    return (int) bytes;
  }
}
