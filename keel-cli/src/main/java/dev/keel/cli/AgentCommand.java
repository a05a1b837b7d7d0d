package dev.keel.cli;

import dev.keel.agent.AccessPolicy;
import dev.keel.agent.AgentConfig;
import dev.keel.agent.AgentLimits;
import dev.keel.agent.DatabaseAgent;
import dev.keel.mcp.core.McpJson;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code keel agent}: the Keel database agent. Without {@code --jdbc-url} it serves an embedded
 * H2 database with a sample dataset, so the first run needs nothing else. Over HTTP it prints
 * {@code listening on http://HOST:PORT/mcp} first, then how to connect a client.
 */
@Command(name = "agent", mixinStandardHelpOptions = true,
    description = {"Run the Keel database agent: read-only SQL access to a database over MCP "
        + "(HTTP, or stdio with --stdio).",
        "Without --jdbc-url it serves an embedded H2 database with a sample dataset."})
final class AgentCommand implements Callable<Integer> {

  /** The port the agent listens on when {@code --port} is not given. */
  static final int DEFAULT_PORT = 8765;

  @Spec
  CommandSpec spec;

  @Mixin
  ServerOptions server;

  @Option(names = "--jdbc-url", paramLabel = "URL",
      description = "The database to serve, e.g. jdbc:postgresql://127.0.0.1:5432/shop "
          + "(default: the embedded sample).")
  String jdbcUrl;

  @Option(names = "--user", paramLabel = "USER", description = "The database user.")
  String user;

  @Option(names = "--password-env", paramLabel = "VAR",
      description = "The environment variable holding the database password (never pass a "
          + "password on the command line).")
  String passwordEnv;

  @Option(names = "--schema", paramLabel = "SCHEMA",
      description = "The schema to expose (default: the connection's current schema).")
  String schema;

  @Option(names = "--config", paramLabel = "FILE",
      description = "The agent's configuration (JSON): its sources (databases), their access "
          + "policies, limits and row rules, curated tools and the audit file; or an access "
          + "policy alone for the --jdbc-url database (default: everyone sees everything).")
  Path config;

  @Option(names = "--audit-file", paramLabel = "FILE",
      description = "Append every decision (run, refused, cut, cancelled, timed out, writes "
          + "approved or declined) to this file as JSON lines.")
  Path auditFile;

  @Option(names = "--allow-writes",
      description = "Offer insert_row and update_rows; each call still needs a person's "
          + "approval through the client (elicitation).")
  boolean allowWrites;

  @Option(names = "--max-rows", paramLabel = "N", defaultValue = "500",
      description = "Rows per result (default: ${DEFAULT-VALUE}).")
  int maxRows;

  @Option(names = "--max-result-bytes", paramLabel = "N", defaultValue = "262144",
      description = "Bytes of JSON per result (default: ${DEFAULT-VALUE}).")
  long maxResultBytes;

  @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "30",
      description = "Seconds a statement may run (default: ${DEFAULT-VALUE}).")
  int statementTimeout;

  @Option(names = "--max-queries-per-principal", paramLabel = "N", defaultValue = "4",
      description = "Statements one principal may run at once (default: ${DEFAULT-VALUE}).")
  int maxQueries;

  @Option(names = "--pool-size", paramLabel = "N", defaultValue = "8",
      description = "Database connections (default: ${DEFAULT-VALUE}).")
  int poolSize;

  @Override
  public Integer call() throws Exception {
    DatabaseAgent agent;
    try {
      agent = build();
    } catch (IllegalStateException | IllegalArgumentException | UncheckedIOException e) {
      // a database out of reach, a row rule or curated tool the check refuses: one line
      System.err.println("keel agent: " + e.getMessage());
      return 1;
    }
    if (!allowWrites && !agent.roleWrites().isEmpty()) {
      // loud, on stderr, before anything else: the agent refuses writes itself, but this role
      // should not be able to make them at all
      System.err.println("keel agent: WARNING: the database role can change the database, "
          + "although --allow-writes is off:");
      agent.roleWrites().forEach(w -> System.err.println("keel agent: WARNING:   " + w));
      System.err.println("keel agent: WARNING: the agent refuses writes itself; give it a role "
          + "that may only read (docs/agent.md, \"A read-only role\").");
    }
    server.consolePanels = console -> console.panel("Recent statements",
        () -> statementRows(agent));
    try {
      return server.serve(agent.server(), DEFAULT_PORT, endpoint -> banner(agent, endpoint));
    } catch (IllegalStateException e) {
      // most often the port is taken: say so in one line, not a stack trace
      System.err.println("keel agent: " + e.getMessage()
          + (server.port == null ? " (pass --port to choose another port)" : ""));
      return 1;
    } finally {
      agent.close();
    }
  }

  /** The agent's recent audited statements as console rows, refusals highlighted. */
  static java.util.List<java.util.Map<String, Object>> statementRows(DatabaseAgent agent) {
    java.util.List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
    for (dev.keel.agent.AuditedStatement s : agent.recentStatements()) {
      java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
      row.put("time", s.time().toString());
      row.put("principal", s.principal());
      row.put("tool", s.tool());
      row.put("statement", s.statement() == null ? "" : s.statement());
      row.put("outcome", s.outcome());
      row.put("reason", s.reason() == null ? "" : s.reason());
      row.put("highlight", s.refused());
      rows.add(row);
    }
    return rows;
  }

  private DatabaseAgent build() {
    AgentLimits limits;
    try {
      limits = AgentLimits.defaults().withMaxRows(maxRows).withMaxResultBytes(maxResultBytes)
          .withStatementTimeout(Duration.ofSeconds(statementTimeout))
          .withMaxConcurrentQueries(maxQueries).withPoolSize(poolSize);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    DatabaseAgent.Builder builder = DatabaseAgent.builder().limits(limits)
        .allowWrites(allowWrites).schema(schema).server(server.shared());
    if (auditFile != null) {
      builder.auditFile(auditFile);
    }
    if (config != null) {
      String text;
      try {
        text = java.nio.file.Files.readString(config);
      } catch (java.io.IOException e) {
        throw new ParameterException(spec.commandLine(), "--config " + config
            + ": cannot be read (" + e.getMessage() + ")");
      }
      if (AgentConfig.isConfiguration(text)) {
        List<String> clashing = new ArrayList<>();
        for (String option : List.of("--jdbc-url", "--user", "--password-env", "--schema",
            "--allow-writes", "--max-rows", "--max-result-bytes", "--statement-timeout",
            "--max-queries-per-principal", "--pool-size")) {
          if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
            clashing.add(option);
          }
        }
        if (!clashing.isEmpty()) {
          throw new ParameterException(spec.commandLine(), String.join(", ", clashing)
              + ": with a configuration of sources, say this in the configuration instead "
              + "(each source's jdbcUrl, user, passwordEnv, schema, allowWrites and limits)");
        }
        try {
          builder.config(AgentConfig.load(config));
        } catch (IllegalArgumentException | UncheckedIOException e) {
          throw new ParameterException(spec.commandLine(), "--config " + e.getMessage());
        }
        return builder.build();
      }
      try {
        builder.access(AccessPolicy.load(config));
      } catch (IllegalArgumentException | UncheckedIOException e) {
        throw new ParameterException(spec.commandLine(), "--config " + config + ": "
            + e.getMessage());
      }
    }
    if (jdbcUrl != null) {
      builder.jdbcUrl(jdbcUrl).user(user);
      if (passwordEnv != null) {
        String password = System.getenv(passwordEnv);
        if (password == null) {
          throw new ParameterException(spec.commandLine(), "--password-env " + passwordEnv
              + ": no such environment variable");
        }
        builder.password(password);
      }
    } else if (user != null || passwordEnv != null || schema != null) {
      throw new ParameterException(spec.commandLine(),
          "--user, --password-env and --schema need --jdbc-url");
    }
    return builder.build();
  }

  /** Prints what the agent serves and ready-to-paste client configurations. */
  private void banner(DatabaseAgent agent, URI endpoint) {
    if (agent.sourceNames().size() > 1) {
      System.out.println("keel agent: " + agent.sourceNames().size() + " sources ("
          + String.join(", ", agent.sourceNames()) + "); list_sources shows a caller its own");
    } else {
      System.out.println("keel agent: " + agent.databaseProduct()
          + (agent.isSample() ? " (embedded sample: a small shop, 7 tables)" : "")
          + (allowWrites ? ", writes with approval" : ", read-only"));
    }
    System.out.println("try it:");
    System.out.println("  ./keel call " + endpoint + " query '{\"sql\":\"SELECT country, "
        + "count(*) AS customers FROM customers GROUP BY country ORDER BY 2 DESC\"}'");
    ObjectNode http = McpJson.object();
    ObjectNode httpServer = http.putObject("mcpServers").putObject("keel-db");
    httpServer.put("type", "http");
    httpServer.put("url", endpoint.toString());
    if (server.authenticated()) {
      httpServer.putObject("headers").put("Authorization", "Bearer <SECRET>");
    }
    System.out.println("MCP clients over Streamable HTTP:");
    System.out.println("  " + McpJson.standard().write(http));
    System.out.println("desktop MCP clients over stdio (e.g. claude_desktop_config.json):");
    System.out.println("  " + McpJson.standard().write(stdioConfig()));
  }

  private ObjectNode stdioConfig() {
    ObjectNode root = McpJson.object();
    ObjectNode entry = root.putObject("mcpServers").putObject("keel-db");
    entry.put("command", "java");
    ArrayNode args = entry.putArray("args");
    args.add("-jar").add(jarPath()).add("agent").add("--stdio");
    List<String> options = new ArrayList<>();
    if (jdbcUrl != null) {
      options.addAll(List.of("--jdbc-url", jdbcUrl));
    }
    if (user != null) {
      options.addAll(List.of("--user", user));
    }
    if (passwordEnv != null) {
      options.addAll(List.of("--password-env", passwordEnv));
      entry.putObject("env").put(passwordEnv, "<password>");
    }
    if (schema != null) {
      options.addAll(List.of("--schema", schema));
    }
    if (config != null) {
      options.addAll(List.of("--config", config.toAbsolutePath().toString()));
    }
    if (auditFile != null) {
      options.addAll(List.of("--audit-file", auditFile.toAbsolutePath().toString()));
    }
    if (allowWrites) {
      options.add("--allow-writes");
    }
    options.forEach(args::add);
    return root;
  }

  private static String jarPath() {
    try {
      Path location = Path.of(AgentCommand.class.getProtectionDomain().getCodeSource()
          .getLocation().toURI());
      if (location.toString().endsWith(".jar")) {
        return location.toAbsolutePath().toString();
      }
    } catch (java.net.URISyntaxException | RuntimeException e) {
      // fall through to the name the build gives the jar
    }
    return "keel-cli/target/keel.jar";
  }
}
