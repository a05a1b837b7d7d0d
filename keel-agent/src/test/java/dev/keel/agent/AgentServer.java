package dev.keel.agent;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.McpHttpServer;
import java.time.Duration;
import java.util.Map;

/**
 * An agent served over real HTTP for tests, on H2 (the embedded sample), on the test
 * PostgreSQL or on a SQLite file, with three API keys: {@code analyst} sees the shop's tables but not
 * {@code audit_log}, nor employees' salaries, nor customers' e-mail addresses and signup dates;
 * {@code auditor} sees only {@code audit_log} and {@code employees}; {@code admin} sees
 * everything.
 */
final class AgentServer implements AutoCloseable {

  static final String ANALYST = "analyst-secret";
  static final String AUDITOR = "auditor-secret";
  static final String ADMIN = "admin-secret";
  static final Map<String, String> KEYS = Map.of(ANALYST, "analyst", AUDITOR, "auditor",
      ADMIN, "admin");

  /** Names the analyst must never see, in any answer. */
  static final String[] HIDDEN_FROM_ANALYST = {"audit_log", "salary", "email", "signup_date"};

  final String engine;
  final DatabaseAgent agent;
  final McpHttpServer http;

  private AgentServer(String engine, DatabaseAgent agent) {
    this(engine, agent, KEYS);
  }

  /** Serves {@code agent} over HTTP with {@code keys} (principal names by secret). */
  AgentServer(String engine, DatabaseAgent agent, Map<String, String> keys) {
    this.engine = engine;
    this.agent = agent;
    // Default keep-alives: a running request's stream is probed often enough on its own for
    // the stateless era's cancellation (a closed stream) to be noticed quickly.
    this.http = McpHttpServer.builder(agent.server()).port(0)
        .servlet(b -> b.authenticator(Authenticator.bearerTokens(keys)))
        .start();
  }

  /** Serves {@code agent} over HTTP with {@code authenticator} (principals with claims). */
  AgentServer(String engine, DatabaseAgent agent, Authenticator authenticator) {
    this.engine = engine;
    this.agent = agent;
    this.http = McpHttpServer.builder(agent.server()).port(0)
        .servlet(b -> b.authenticator(authenticator)).start();
  }

  /**
   * An authenticator of bearer tokens, each standing for a principal with claims, as an OAuth
   * access token would.
   */
  static Authenticator withClaims(Map<String, dev.keel.mcp.server.Principal> byToken) {
    return request -> {
      String header = request.getHeader("Authorization");
      if (header == null || !header.startsWith("Bearer ")) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.ofNullable(byToken.get(header.substring(7)));
    };
  }

  static AccessPolicy policy() {
    return AccessPolicy.builder()
        .grant("analyst", "regions")
        .grant("analyst", "customers", "id", "name", "country", "region_id", "segment")
        .grant("analyst", "products")
        .grant("analyst", "orders")
        .grant("analyst", "order_items")
        .grant("analyst", "employees", "id", "name", "title", "region_id")
        .grant("auditor", "audit_log")
        .grant("auditor", "employees")
        .grantAll("admin")
        .build();
  }

  static AgentServer h2(AgentLimits limits, boolean writes) {
    return new AgentServer("h2", DatabaseAgent.builder().access(policy()).limits(limits)
        .allowWrites(writes).build());
  }

  static AgentServer postgres(String database, AgentLimits limits, boolean writes) {
    TestPostgres pg = TestPostgres.get();
    return new AgentServer("postgresql", DatabaseAgent.builder()
        .jdbcUrl(pg.database(database)).user(TestPostgres.AGENT_USER)
        .password(TestPostgres.AGENT_PASSWORD).access(policy()).limits(limits)
        .allowWrites(writes).build());
  }

  /**
   * An agent on the test MariaDB through {@code driver}, logged in as a user that may write
   * (so the agent's own layers are what keeps it read-only).
   */
  static AgentServer mariadb(String database, TestMariaDb.Driver driver, AgentLimits limits,
      boolean writes) {
    TestMariaDb db = TestMariaDb.get();
    return new AgentServer("mariadb-" + driver.name().toLowerCase(java.util.Locale.ROOT),
        DatabaseAgent.builder().jdbcUrl(db.database(database, driver))
            .user(TestMariaDb.AGENT_USER).password(TestMariaDb.AGENT_PASSWORD)
            .access(policy()).limits(limits).allowWrites(writes).build());
  }

  /** Serves a SQLite file (see {@link TestSqlite}). */
  static AgentServer sqlite(TestSqlite file, AgentLimits limits, boolean writes) {
    return new AgentServer("sqlite", DatabaseAgent.builder().jdbcUrl(file.url())
        .access(policy()).limits(limits).allowWrites(writes).build());
  }

  AgentClient client(String bearer) {
    return new AgentClient(http.endpoint(), bearer);
  }

  @Override
  public void close() {
    http.close();
    agent.close();
  }

  @Override
  public String toString() {
    return engine;
  }
}
