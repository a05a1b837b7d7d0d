package dev.keel.agent;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The agent's configuration file: the databases it serves, who sees what in each, their
 * limits, the curated tools, and where the audit trail goes. JSON, read strictly: a key the
 * agent does not know is an error naming it (with the nearest known key), never ignored, and
 * passwords come from the environment, never from the file.
 *
 * <pre>{@code
 * {
 *   "sources": {
 *     "shop": {
 *       "jdbcUrl": "jdbc:postgresql://127.0.0.1:5432/shop",
 *       "user": "reader", "passwordEnv": "SHOP_PASSWORD", "schema": "public",
 *       "limits": {"maxRows": 200, "statementTimeoutSeconds": 10},
 *       "access": {"principals": {
 *         "analyst": {"tables": {"orders": {"columns": "*",
 *                                           "rows": "customer_id = ${claims.customer_id}"}}},
 *         "admin": {"tables": "*"}}}
 *     },
 *     "local": {"sample": true}
 *   },
 *   "tools": {
 *     "orders_by_status": {
 *       "source": "shop", "description": "Orders with a given status",
 *       "sql": "SELECT id, status, total FROM orders WHERE status = ?",
 *       "parameters": [{"name": "status", "type": "string", "description": "e.g. shipped"}]
 *     }
 *   },
 *   "audit": {"file": "/var/log/keel/audit.jsonl",
 *             "table": {"jdbcUrl": "jdbc:postgresql://127.0.0.1:5432/ops", "user": "keel_audit",
 *                       "passwordEnv": "AUDIT_PASSWORD", "name": "keel_audit"}}
 * }
 * }</pre>
 *
 * @param sources the databases, in the file's order
 * @param tools the curated tools
 * @param auditFile the file the audit trail goes to, or null for none
 * @param auditTable the table the audit trail goes to, or null for none
 */
public record AgentConfig(List<DatabaseSource> sources, List<CuratedTool> tools,
    Path auditFile, AuditTable auditTable) {

  private static final Set<String> ROOT = Set.of("sources", "tools", "audit", "limits");
  private static final Set<String> SOURCE = Set.of("jdbcUrl", "sample", "user", "passwordEnv",
      "schema", "allowWrites", "limits", "access");
  private static final Set<String> LIMITS = Set.of("maxRows", "maxResultBytes", "maxCellChars",
      "statementTimeoutSeconds", "maxConcurrentQueries", "poolSize", "maxRowsPerUpdate",
      "queriesPerMinute", "rowsPerMinute", "maxEstimatedRows", "maxEstimatedCost",
      "timeBudgetSecondsPerMinute");
  private static final Set<String> TOOL = Set.of("source", "description", "sql", "parameters");
  private static final Set<String> PARAMETER = Set.of("name", "type", "description", "required",
      "default", "claim");
  private static final Set<String> AUDIT = Set.of("file", "table");
  private static final Set<String> AUDIT_TABLE = Set.of("jdbcUrl", "user", "passwordEnv",
      "name");

  /** Copies the lists. */
  public AgentConfig {
    sources = List.copyOf(sources);
    tools = tools == null ? List.of() : List.copyOf(tools);
    if (sources.isEmpty()) {
      throw new IllegalArgumentException("the configuration needs at least one source");
    }
  }

  /**
   * Reads a configuration file, with passwords from the process environment.
   *
   * @throws UncheckedIOException when the file cannot be read
   * @throws IllegalArgumentException naming what is wrong, by its key
   */
  public static AgentConfig load(Path file) {
    return load(file, System::getenv);
  }

  /** Reads a configuration file, with passwords from {@code env}. */
  public static AgentConfig load(Path file, Function<String, String> env) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the configuration " + file, e);
    }
    try {
      return parse(text, env);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns true when {@code text} is an agent configuration rather than a bare access policy
   * (the older form of {@code --config}, a file with only {@code "principals"}).
   */
  public static boolean isConfiguration(String text) {
    try {
      JsonNode root = McpJson.standard().parse(text);
      return root.isObject() && !root.has("principals");
    } catch (JacksonException | IllegalArgumentException e) {
      return true;
    }
  }

  /**
   * Parses a configuration, with passwords from {@code env}.
   *
   * @throws IllegalArgumentException naming what is wrong, by its key
   */
  public static AgentConfig parse(String text, Function<String, String> env) {
    JsonNode root;
    try {
      root = McpJson.standard().parse(text);
    } catch (JacksonException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the configuration is not valid JSON: "
          + e.getMessage(), e);
    }
    known(root, ROOT, "");
    JsonNode defaults = root.get("limits");
    AgentLimits base = limits(defaults, AgentLimits.defaults(), "limits");
    JsonNode sourcesNode = root.get("sources");
    if (sourcesNode == null || !sourcesNode.isObject() || sourcesNode.isEmpty()) {
      throw new IllegalArgumentException("\"sources\" must name at least one database");
    }
    List<DatabaseSource> sources = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : sourcesNode.properties()) {
      sources.add(source(e.getKey(), e.getValue(), base, env));
    }
    List<CuratedTool> tools = new ArrayList<>();
    JsonNode toolsNode = root.get("tools");
    if (toolsNode != null) {
      object(toolsNode, "tools");
      for (Map.Entry<String, JsonNode> e : toolsNode.properties()) {
        tools.add(tool(e.getKey(), e.getValue()));
      }
    }
    Path audit = null;
    AuditTable table = null;
    JsonNode auditNode = root.get("audit");
    if (auditNode != null) {
      object(auditNode, "audit");
      known(auditNode, AUDIT, "audit.");
      if (!auditNode.has("file") && !auditNode.has("table")) {
        throw new IllegalArgumentException("audit needs a file, a table or both");
      }
      String file = string(auditNode, "file", "audit.file", false);
      audit = file == null ? null : Path.of(file);
      JsonNode tableNode = auditNode.get("table");
      if (tableNode != null) {
        object(tableNode, "audit.table");
        known(tableNode, AUDIT_TABLE, "audit.table.");
        try {
          table = new AuditTable(string(tableNode, "jdbcUrl", "audit.table.jdbcUrl", true),
              string(tableNode, "user", "audit.table.user", false),
              password(tableNode, "audit.table", env),
              string(tableNode, "name", "audit.table.name", false));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("audit.table: " + e.getMessage(), e);
        }
      }
    }
    return new AgentConfig(sources, tools, audit, table);
  }

  private static DatabaseSource source(String name, JsonNode node, AgentLimits base,
      Function<String, String> env) {
    String at = "sources." + name;
    object(node, at);
    known(node, SOURCE, at + ".");
    boolean sample = node.path("sample").asBoolean(false);
    String url = string(node, "jdbcUrl", at + ".jdbcUrl", !sample);
    if (sample && url != null) {
      throw new IllegalArgumentException(at + ": \"sample\" and \"jdbcUrl\" exclude each other");
    }
    String password = password(node, at, env);
    AccessPolicy access = node.has("access")
        ? AccessPolicy.fromJson(node.get("access"), at + ".access") : AccessPolicy.allowAll();
    try {
      return new DatabaseSource(name, url, string(node, "user", at + ".user", false), password,
          string(node, "schema", at + ".schema", false), access,
          limits(node.get("limits"), base, at + ".limits"),
          node.path("allowWrites").asBoolean(false));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
    }
  }

  private static AgentLimits limits(JsonNode node, AgentLimits base, String at) {
    if (node == null) {
      return base;
    }
    object(node, at);
    known(node, LIMITS, at + ".");
    AgentLimits l = base;
    try {
      if (node.has("maxRows")) {
        l = l.withMaxRows(integer(node, "maxRows", at));
      }
      if (node.has("maxResultBytes")) {
        l = l.withMaxResultBytes(integer(node, "maxResultBytes", at));
      }
      if (node.has("maxCellChars")) {
        l = l.withMaxCellChars(integer(node, "maxCellChars", at));
      }
      if (node.has("statementTimeoutSeconds")) {
        l = l.withStatementTimeout(Duration.ofSeconds(integer(node, "statementTimeoutSeconds",
            at)));
      }
      if (node.has("maxConcurrentQueries")) {
        l = l.withMaxConcurrentQueries(integer(node, "maxConcurrentQueries", at));
      }
      if (node.has("poolSize")) {
        l = l.withPoolSize(integer(node, "poolSize", at));
      }
      if (node.has("maxRowsPerUpdate")) {
        l = l.withMaxRowsPerUpdate(integer(node, "maxRowsPerUpdate", at));
      }
      if (node.has("queriesPerMinute")) {
        l = l.withQueriesPerMinute(integer(node, "queriesPerMinute", at));
      }
      if (node.has("rowsPerMinute")) {
        l = l.withRowsPerMinute(integer(node, "rowsPerMinute", at));
      }
      if (node.has("maxEstimatedRows")) {
        l = l.withMaxEstimatedRows(integer(node, "maxEstimatedRows", at));
      }
      if (node.has("maxEstimatedCost")) {
        l = l.withMaxEstimatedCost(integer(node, "maxEstimatedCost", at));
      }
      if (node.has("timeBudgetSecondsPerMinute")) {
        l = l.withTimeBudgetPerMinute(Duration.ofSeconds(integer(node,
            "timeBudgetSecondsPerMinute", at)));
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
    }
    return l;
  }

  private static CuratedTool tool(String name, JsonNode node) {
    String at = "tools." + name;
    object(node, at);
    known(node, TOOL, at + ".");
    List<CuratedTool.Parameter> parameters = new ArrayList<>();
    JsonNode list = node.get("parameters");
    if (list != null) {
      if (!list.isArray()) {
        throw new IllegalArgumentException(at + ".parameters must be a list (in the order of "
            + "the ?s)");
      }
      int i = 0;
      for (JsonNode p : list) {
        String pat = at + ".parameters[" + i++ + "]";
        object(p, pat);
        known(p, PARAMETER, pat + ".");
        JsonNode def = p.get("default");
        Object defaultValue = def == null || def.isNull() ? null : def.isString()
            ? def.stringValue() : def.isBoolean() ? (Object) def.booleanValue()
            : def.isNumber() ? def.numberValue() : badDefault(pat);
        try {
          parameters.add(new CuratedTool.Parameter(string(p, "name", pat + ".name", true),
              string(p, "type", pat + ".type", true), string(p, "description",
                  pat + ".description", false), p.path("required").asBoolean(true),
              defaultValue, string(p, "claim", pat + ".claim", false)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(pat + ": " + e.getMessage(), e);
        }
      }
    }
    try {
      return new CuratedTool(name, string(node, "description", at + ".description", true),
          string(node, "source", at + ".source", true), string(node, "sql", at + ".sql", true),
          parameters);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
    }
  }

  private static Object badDefault(String at) {
    throw new IllegalArgumentException(at + ".default must be a string, number or boolean");
  }

  private static void object(JsonNode node, String at) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException((at.isEmpty() ? "the configuration" : at)
          + " must be an object");
    }
  }

  /** Refuses a key the agent does not know, naming the nearest one it does. */
  private static void known(JsonNode node, Set<String> keys, String prefix) {
    object(node, prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1));
    for (String key : node.propertyNames()) {
      if (!keys.contains(key)) {
        String near = keys.stream().min(Comparator.comparingInt(k -> distance(k, key)))
            .orElseThrow();
        throw new IllegalArgumentException(prefix + key + ": unknown key"
            + (distance(near, key) <= 3 ? " (did you mean " + near + "?)" : "")
            + "; known here: " + String.join(", ", new java.util.TreeSet<>(keys)));
      }
    }
  }

  /** The password named by {@code passwordEnv}, from the environment; null without one. */
  private static String password(JsonNode node, String at, Function<String, String> env) {
    String variable = string(node, "passwordEnv", at + ".passwordEnv", false);
    if (variable == null) {
      return null;
    }
    String password = env.apply(variable);
    if (password == null) {
      throw new IllegalArgumentException(at + ".passwordEnv: the environment variable "
          + variable + " is not set");
    }
    return password;
  }

  private static String string(JsonNode node, String key, String at, boolean required) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      if (required) {
        throw new IllegalArgumentException(at + " is required");
      }
      return null;
    }
    if (!v.isString() || v.stringValue().isBlank()) {
      throw new IllegalArgumentException(at + " must be a non-empty string");
    }
    return v.stringValue();
  }

  private static int integer(JsonNode node, String key, String at) {
    JsonNode v = node.get(key);
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new IllegalArgumentException(at + "." + key + " must be a whole number");
    }
    return v.intValue();
  }

  /** Levenshtein distance, case-insensitive: typos in keys are usually one or two edits. */
  static int distance(String a, String b) {
    a = a.toLowerCase(java.util.Locale.ROOT);
    b = b.toLowerCase(java.util.Locale.ROOT);
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
