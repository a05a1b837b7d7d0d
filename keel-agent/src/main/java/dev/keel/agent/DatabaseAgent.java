package dev.keel.agent;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.Database;
import dev.keel.agent.internal.features.ExplorePrompts;
import dev.keel.agent.internal.features.NameCompletions;
import dev.keel.agent.internal.features.TableResources;
import dev.keel.agent.internal.tools.AnalysisTools;
import dev.keel.agent.internal.tools.QueryTools;
import dev.keel.agent.internal.tools.ReadTools;
import dev.keel.agent.internal.tools.WriteTools;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The Keel database agent: an MCP server that lets an AI agent explore and query a relational
 * database, read-only by default. Without a JDBC URL it serves an embedded H2 database with a
 * sample dataset.
 *
 * <pre>{@code
 * try (DatabaseAgent agent = DatabaseAgent.builder()
 *         .jdbcUrl("jdbc:postgresql://127.0.0.1/shop").user("reader").password(secret)
 *         .access(AccessPolicy.load(Path.of("access.json")))
 *         .build();
 *     McpHttpServer http = McpHttpServer.builder(agent.server()).port(8765).start()) {
 *   http.join();
 * }
 * }</pre>
 *
 * <p>Read-only holds at two independent layers: a statement check before anything reaches the
 * database, and a read-only transaction (for the embedded sample, a database user that may only
 * read). Writes exist only when {@link Builder#allowWrites} is set, and each one waits for a
 * person's approval.
 */
public final class DatabaseAgent implements AutoCloseable {

  private final Database db;
  private final McpServer server;

  private DatabaseAgent(Database db, McpServer server) {
    this.db = db;
    this.server = server;
  }

  /** Returns a builder; by default it serves the embedded sample database. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the MCP server to serve over HTTP or stdio. */
  public McpServer server() {
    return server;
  }

  /** Returns the database product and version, such as {@code PostgreSQL 15.8}. */
  public String databaseProduct() {
    return db.product();
  }

  /** Returns true when this agent serves the embedded sample database. */
  public boolean isSample() {
    return db.isSample();
  }

  /**
   * Returns what the agent's database role could change, one line per kind of privilege, as
   * the database reported at start-up; empty when it may only read. The agent refuses writes
   * by itself, but the role's privileges are the last word: a non-empty list deserves a role
   * that may only read (docs/agent.md shows how).
   */
  public java.util.List<String> roleWrites() {
    return db.roleWrites();
  }

  /** Returns how many database connections are in use right now (for operators and tests). */
  public int activeConnections() {
    return db.activeConnections();
  }

  /** Stops the server and closes every database connection. */
  @Override
  public void close() {
    try {
      server.close();
    } finally {
      db.close();
    }
  }

  /** Builds a {@link DatabaseAgent}. Not thread-safe. */
  public static final class Builder {
    private String jdbcUrl;
    private String user;
    private String password;
    private String schema;
    private AccessPolicy access = AccessPolicy.allowAll();
    private AgentLimits limits = AgentLimits.defaults();
    private boolean allowWrites;
    private Consumer<McpServer.Builder> customizer = b -> { };

    private Builder() {}

    /** Connects to this database instead of the embedded sample. */
    public Builder jdbcUrl(String value) {
      this.jdbcUrl = Objects.requireNonNull(value, "jdbcUrl");
      return this;
    }

    /** Sets the database user. */
    public Builder user(String value) {
      this.user = value;
      return this;
    }

    /** Sets the database password. */
    public Builder password(String value) {
      this.password = value;
      return this;
    }

    /** Sets the schema to expose (default: the connection's current schema). */
    public Builder schema(String value) {
      this.schema = value;
      return this;
    }

    /** Sets who may see which tables (default: everyone sees everything). */
    public Builder access(AccessPolicy value) {
      this.access = Objects.requireNonNull(value, "access");
      return this;
    }

    /** Sets the limits (default {@link AgentLimits#defaults()}). */
    public Builder limits(AgentLimits value) {
      this.limits = Objects.requireNonNull(value, "limits");
      return this;
    }

    /**
     * Offers the insert and update tools. Each call still needs a person's approval through
     * elicitation; clients that cannot ask are refused.
     */
    public Builder allowWrites(boolean value) {
      this.allowWrites = value;
      return this;
    }

    /** Adjusts the MCP server before it is built (session limits, cache hints, ...). */
    public Builder server(Consumer<McpServer.Builder> value) {
      this.customizer = Objects.requireNonNull(value, "server");
      return this;
    }

    /**
     * Connects (or creates the sample database) and returns the agent.
     *
     * @throws IllegalStateException naming the database when it cannot be reached
     */
    public DatabaseAgent build() {
      Database db = jdbcUrl == null ? Database.sample(limits, allowWrites)
          : Database.connect(jdbcUrl, user, password, schema, limits, allowWrites);
      try {
        AgentCore core = new AgentCore(db, access, limits);
        // A little longer than the statement timeout: the database's own timeout normally
        // stops the statement first and says so; this one is the backstop. No interrupts:
        // cancellation reaches a statement through Statement.cancel(), and interrupting a
        // virtual thread blocked in a JDBC read would close the driver's socket instead,
        // leaving the statement running on the server with nobody to cancel it.
        ToolOptions options = ToolOptions.defaults().withoutInterrupt()
            .withTimeout(limits.statementTimeout().plus(Duration.ofSeconds(1)));
        McpServer.Builder server = McpServer.builder().name("keel-agent").version("0.1.0")
            .title("Keel database agent")
            .instructions("Read-only access to a " + db.product() + " database. Start with "
                + "list_tables or the explore_database prompt; describe_table shows keys; "
                + "query runs one read-only SQL query with ? parameters. Results are capped; a "
                + "capped result has truncated=true.");
        ReadTools reads = ReadTools.register(server, core, options);
        QueryTools.register(server, core, options);
        AnalysisTools.register(server, core, options);
        if (allowWrites) {
          // the approval may take a person a while; the statement itself is bounded inside
          WriteTools.register(server, core, ToolOptions.defaults().withoutInterrupt()
              .withTimeout(Duration.ofMinutes(10)), reads);
        }
        TableResources.register(server, core, reads);
        ExplorePrompts.register(server, core, reads);
        NameCompletions.register(server, core);
        customizer.accept(server);
        return new DatabaseAgent(db, server.build());
      } catch (RuntimeException e) {
        db.close();
        throw e;
      }
    }
  }
}
