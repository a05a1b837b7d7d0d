package dev.keel.mcp.spring;

import dev.keel.mcp.core.schema.LoggingLevel;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code keel.*} properties: how the starter builds the {@code McpServer} and mounts its
 * {@code McpServlet}. Every property left unset keeps the builder's default, so a property
 * file names only what it changes.
 *
 * <pre>{@code
 * keel.mcp.path=/mcp
 * keel.mcp.allowed-origins=https://app.example.com
 * keel.server.name=orders
 * keel.server.handler-timeout=30s
 * keel.server.sessions.max=2000
 * keel.server.tasks.max-active-per-principal=8
 * }</pre>
 *
 * <p>Bound once at start-up; a change needs a restart. The complete table is in
 * {@code docs/spring-boot.md}.
 *
 * @param mcp the HTTP endpoint ({@code keel.mcp.*})
 * @param server the server ({@code keel.server.*})
 */
@ConfigurationProperties("keel")
public record KeelProperties(@DefaultValue Mcp mcp, @DefaultValue Server server) {

  /**
   * The HTTP endpoint: where {@code McpServlet} is mounted and what its gates let through.
   *
   * @param enabled whether the servlet is mounted at all (default true); off, the server bean
   *     is still built, for stdio or a transport of the application's own
   * @param path the endpoint path (default {@code /mcp}); the servlet is mapped to it exactly
   * @param allowedOrigins the browser origins allowed, such as {@code https://app.example.com}
   *     (a request with another {@code Origin} gets 403; one without passes)
   * @param allowedHosts {@code Host} values allowed (names, optionally with a port)
   * @param loopbackOnly whether only loopback origins and hosts pass when no list is given;
   *     unset, it is true exactly when {@code server.address} is a loopback address
   * @param sessions legacy sessions on (default) or off (stateless legacy mode)
   * @param maxBodySize the largest request body (default: the server's message limit, 4 MiB)
   * @param maxListeningStreams the most open GET listening streams (default 10,000)
   * @param keepAlive how often an open stream gets a keep-alive comment (default 15 s)
   * @param retry the reconnection delay sent before a server-side close (default 1 s)
   * @param bodyTimeout how long a POST body may take to arrive (default 30 s)
   * @param maxBufferedBodySize what all POST bodies still arriving may buffer together
   *     (default 64 MiB)
   * @param resumable whether SSE events are kept for {@code Last-Event-ID} replay (default
   *     true, in memory)
   * @param allowAnonymous whether requests nobody authenticated run as the one local principal
   *     although the server is not loopback-only (default false: they are refused with 401, or
   *     the application does not start when nothing could authenticate them)
   * @param springSecurity whether the principal is taken from Spring Security's
   *     {@code Authentication} when Spring Security is present (default true)
   */
  public record Mcp(@DefaultValue("true") boolean enabled, @DefaultValue("/mcp") String path,
      List<String> allowedOrigins, List<String> allowedHosts, Boolean loopbackOnly,
      @DefaultValue("true") boolean sessions, DataSize maxBodySize, Integer maxListeningStreams,
      Duration keepAlive, Duration retry, Duration bodyTimeout, DataSize maxBufferedBodySize,
      @DefaultValue("true") boolean resumable, @DefaultValue("false") boolean allowAnonymous,
      @DefaultValue("true") boolean springSecurity) {

    /** Keeps the lists unmodifiable and never null. */
    public Mcp {
      allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
      allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
    }
  }

  /**
   * The server: what it says about itself and its limits.
   *
   * @param name the server name (default {@code spring.application.name}, else
   *     {@code keel-server})
   * @param version the server version (default {@code 0.1.0})
   * @param title a display title
   * @param instructions instructions for the model on how to use the server
   * @param pageSize how many items one page of a list carries (default 100)
   * @param handlerTimeout how long a handler may run before it is cancelled (default 60 s)
   * @param clientRequestTimeout how long a handler waits for the client to answer an
   *     elicitation, sampling or roots request (default 5 minutes)
   * @param defaultLogLevel the log level of a session that never set one (default INFO)
   * @param maxInFlightRequests the most requests running at once (default 1,024)
   * @param notificationChannels whether notification channels are allowed (default false)
   * @param maxMessageSize the largest JSON message read from a client (default 4 MiB)
   * @param maxJsonDepth the deepest nesting of such a message (default 64)
   * @param sessions legacy sessions ({@code keel.server.sessions.*})
   * @param modern the 2026-07-28 era ({@code keel.server.modern.*})
   * @param tasks tasks in both eras ({@code keel.server.tasks.*})
   */
  public record Server(String name, String version, String title, String instructions,
      Integer pageSize, Duration handlerTimeout, Duration clientRequestTimeout,
      LoggingLevel defaultLogLevel, Integer maxInFlightRequests, Boolean notificationChannels,
      DataSize maxMessageSize, Integer maxJsonDepth, @DefaultValue Sessions sessions,
      @DefaultValue Modern modern, @DefaultValue Tasks tasks) {}

  /**
   * Legacy sessions.
   *
   * @param max the most live sessions (default 10,000); past it, new sessions get 503
   * @param maxPerPrincipal the most live sessions of one principal (default 1,000)
   * @param idleTimeout how long a session may stay idle before it is evicted (default 30 min)
   */
  public record Sessions(Integer max, Integer maxPerPrincipal, Duration idleTimeout) {}

  /**
   * The stateless 2026-07-28 era: multi-round-trip requests and subscriptions.
   *
   * @param requestStateKey the Base64 key (32 bytes or more) that seals {@code requestState}s;
   *     unset, each process draws its own, so set one on every node of a cluster
   * @param requestStateTtl how long a {@code requestState} stays valid (default 10 minutes)
   * @param maxInputRounds the most input rounds of one request (default 16)
   * @param maxSubscriptionsPerPrincipal the most open {@code subscriptions/listen} streams of
   *     one principal (default 16)
   */
  public record Modern(String requestStateKey, Duration requestStateTtl, Integer maxInputRounds,
      Integer maxSubscriptionsPerPrincipal) {

    /** Hides the key from {@code toString}, which Actuator and logs may show. */
    @Override
    public String toString() {
      return "Modern[requestStateKey=" + (requestStateKey == null ? "unset" : "***")
          + ", requestStateTtl=" + requestStateTtl + ", maxInputRounds=" + maxInputRounds
          + ", maxSubscriptionsPerPrincipal=" + maxSubscriptionsPerPrincipal + "]";
    }
  }

  /**
   * Tasks (the 2025-11-25 utility and the 2026 extension).
   *
   * @param max the most tasks the in-memory store keeps (default 10,000)
   * @param maxPerPrincipal the most tasks it keeps for one principal (default 1,000)
   * @param maxActivePerPrincipal the most tasks one principal may have running (default 64)
   * @param defaultTtl how long a task is kept when the client asks for no ttl (default 30 min)
   * @param maxTtl the longest ttl a client may ask for (default 24 hours)
   * @param pollInterval the poll interval suggested to clients (default 500 ms)
   */
  public record Tasks(Integer max, Integer maxPerPrincipal, Integer maxActivePerPrincipal,
      Duration defaultTtl, Duration maxTtl, Duration pollInterval) {}
}
