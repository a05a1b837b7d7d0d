package dev.keel.agent.internal.analysis;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.agent.internal.run.PlanEstimate;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.mcp.server.RequestContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code suggest_indexes} tool: indexes that would make a query cheaper, found with
 * {@code hypopg}'s hypothetical indexes, which the planner considers in a plain EXPLAIN but
 * which exist only in the agent's own backend, so this works inside the agent's read-only
 * transaction and builds nothing.
 *
 * <p>Candidates are the columns the plan itself names in filters, join and index conditions,
 * sort and group keys (read from {@code EXPLAIN (VERBOSE, FORMAT JSON)}, which qualifies every
 * column with its table's alias, so aliases, subqueries and the narrowing of tables with hidden
 * columns resolve to real tables), limited to visible columns of visible tables in the exposed
 * schema: one index per column and per ordered pair of columns of one table. Each is created
 * hypothetically alone, the query planned, and the index dropped again; the hypothetical state
 * is reset before and always after ({@code DISCARD ALL} would not clear it).
 */
public final class IndexAdvice {

  private static final Logger LOG = LoggerFactory.getLogger(IndexAdvice.class);

  /** The most hypothetical indexes one call tries. */
  static final int MAX_CANDIDATES = 40;

  /** The most suggestions one answer carries. */
  static final int MAX_SUGGESTIONS = 10;

  /** How much cheaper a plan must get for an index to count as helping. */
  static final double MIN_GAIN = 0.05;

  private static final List<String> CONDITION_KEYS = List.of("Filter", "Index Cond",
      "Recheck Cond", "Hash Cond", "Merge Cond", "Join Filter", "Sort Key", "Group Key",
      "Presorted Key");

  private static final String NAME = "(\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*)";
  private static final Pattern QUALIFIED = Pattern.compile(NAME + "\\." + NAME);

  private IndexAdvice() {}

  /** A table and the columns of one candidate index, in index order. */
  private record Candidate(String table, List<String> columns) {}

  /**
   * Suggests indexes for {@code sql} (checked exactly like {@code query}, with {@code params}
   * bound): {@code costBefore}, and {@code suggestions} with each index's table, columns,
   * {@code createIndex} statement and the cost with it.
   */
  public static ObjectNode suggest(AgentCore core, VisibleSchema visible, RequestContext ctx,
      String sql, List<JsonNode> params) {
    if (core.db().dialect() != Dialect.POSTGRESQL) {
      throw new QueryFailedException("Index advice needs PostgreSQL with the hypopg extension; "
          + "this database is " + core.db().product());
    }
    try (Admission admission = core.runner().admit(ctx)) {
      AgentCore.Checked checked = core.checked(sql, visible, params.size());
      return core.runner().onReadConnection(admission, ctx, c -> {
        String hypopg = Extensions.schema(c, "hypopg");
        if (hypopg == null) {
          throw new QueryFailedException("Index advice needs the hypopg extension "
              + "(CREATE EXTENSION hypopg)");
        }
        core.runner().guard(c, checked.sql(), params.size());
        core.runner().guard(c, "EXPLAIN (VERBOSE, FORMAT JSON) " + checked.sql(),
            params.size());
        reset(c, hypopg);
        try {
          return advise(core, visible, c, hypopg, checked.sql(), params);
        } finally {
          resetAfter(c, hypopg);
        }
      });
    }
  }

  private static ObjectNode advise(AgentCore core, VisibleSchema visible, Connection c,
      String hypopg, String sql, List<JsonNode> params) throws SQLException {
    PlanEstimate verbose = PlanEstimate.of(c, "EXPLAIN (VERBOSE, FORMAT JSON) ", sql, params);
    double before = verbose.totalCost();
    List<Candidate> candidates = candidates(core, visible, verbose.plan());
    Map<Candidate, Double> costs = new LinkedHashMap<>();
    for (Candidate candidate : candidates) {
      String create = createIndex(core, candidate);
      long oid;
      try (PreparedStatement p = c.prepareStatement("SELECT indexrelid FROM " + hypopg
          + ".hypopg_create_index(?)")) {
        p.setString(1, create);
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          oid = rs.getLong(1);
        }
      }
      try {
        costs.put(candidate, PlanEstimate.of(c, sql, params).totalCost());
      } finally {
        try (PreparedStatement p = c.prepareStatement("SELECT " + hypopg
            + ".hypopg_drop_index(?)")) {
          p.setLong(1, oid);
          p.execute();
        }
      }
    }
    List<Map.Entry<Candidate, Double>> helping = new ArrayList<>();
    for (Map.Entry<Candidate, Double> e : costs.entrySet()) {
      if (e.getValue() > before * (1 - MIN_GAIN)) {
        continue;
      }
      List<String> columns = e.getKey().columns();
      if (columns.size() == 2) {
        // a pair is worth suggesting only when it beats its leading column alone
        Double single = costs.get(new Candidate(e.getKey().table(), columns.subList(0, 1)));
        if (single != null && e.getValue() > single * (1 - MIN_GAIN)) {
          continue;
        }
      }
      helping.add(e);
    }
    helping.sort(Comparator.comparingDouble(Map.Entry::getValue));
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("costBefore", before);
    out.put("candidatesTried", candidates.size());
    ArrayNode suggestions = out.putArray("suggestions");
    for (Map.Entry<Candidate, Double> e : helping.subList(0,
        Math.min(MAX_SUGGESTIONS, helping.size()))) {
      ObjectNode s = suggestions.addObject();
      s.put("table", e.getKey().table());
      e.getKey().columns().forEach(s.putArray("columns")::add);
      s.put("createIndex", createIndex(core, e.getKey()));
      s.put("costBefore", before);
      s.put("costAfter", e.getValue());
      s.put("improvement", Math.round((1 - e.getValue() / before) * 1000) / 10.0 + "%");
    }
    if (helping.isEmpty()) {
      out.put("message", candidates.isEmpty()
          ? "The plan filters, joins or sorts on no column an index could serve"
          : "No single- or two-column index lowers the estimated cost of this query");
    }
    return out;
  }

  private static String createIndex(AgentCore core, Candidate candidate) {
    return "CREATE INDEX ON " + core.db().qualified(candidate.table()) + " ("
        + candidate.columns().stream().map(core.db().identifiers()::quote)
            .collect(Collectors.joining(", ")) + ")";
  }

  /** The columns the plan names, by table, then one- and two-column candidates. */
  static List<Candidate> candidates(AgentCore core, VisibleSchema visible, JsonNode plan) {
    Map<String, String> tableByAlias = new LinkedHashMap<>();
    List<String> conditions = new ArrayList<>();
    walk(core, visible, plan.path(0).path("Plan"), tableByAlias, conditions);
    Map<String, Set<String>> columnsByTable = new LinkedHashMap<>();
    for (String condition : conditions) {
      Matcher m = QUALIFIED.matcher(condition);
      while (m.find()) {
        String table = tableByAlias.get(unquote(m.group(1)));
        if (table == null) {
          continue;
        }
        Optional<TableInfo> info = visible.table(table);
        String column = unquote(m.group(2));
        if (info.isPresent() && info.get().columnNames().contains(column)) {
          columnsByTable.computeIfAbsent(table, k -> new LinkedHashSet<>()).add(column);
        }
      }
    }
    List<Candidate> candidates = new ArrayList<>();
    columnsByTable.forEach((table, columns) -> columns.forEach(
        column -> candidates.add(new Candidate(table, List.of(column)))));
    columnsByTable.forEach((table, columns) -> {
      for (String a : columns) {
        for (String b : columns) {
          if (!a.equals(b)) {
            candidates.add(new Candidate(table, List.of(a, b)));
          }
        }
      }
    });
    return candidates.subList(0, Math.min(MAX_CANDIDATES, candidates.size()));
  }

  private static void walk(AgentCore core, VisibleSchema visible, JsonNode node,
      Map<String, String> tableByAlias, List<String> conditions) {
    if (node.has("Relation Name") && node.has("Alias")
        && core.db().schema().equals(node.path("Schema").asString(""))
        && visible.names().contains(node.get("Relation Name").asString())) {
      tableByAlias.put(node.get("Alias").asString(), node.get("Relation Name").asString());
    }
    for (String key : CONDITION_KEYS) {
      JsonNode value = node.get(key);
      if (value == null) {
        continue;
      }
      if (value.isArray()) {
        value.forEach(v -> conditions.add(v.asString("")));
      } else {
        conditions.add(value.asString(""));
      }
    }
    for (JsonNode child : node.path("Plans")) {
      walk(core, visible, child, tableByAlias, conditions);
    }
  }

  private static String unquote(String name) {
    return name.startsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"")
        : name;
  }

  private static void reset(Connection c, String hypopg) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT " + hypopg + ".hypopg_reset()");
    }
  }

  /**
   * Clears the hypothetical indexes even after a failure: a failed statement aborts the
   * transaction, so it is rolled back first (the session stays read-only by default) and the
   * reset tried again; the indexes live in the backend, past the transaction and DISCARD ALL.
   */
  private static void resetAfter(Connection c, String hypopg) throws SQLException {
    try {
      reset(c, hypopg);
    } catch (SQLException first) {
      LOG.debug("hypopg_reset failed, retrying after a rollback: {}", first.toString());
      c.rollback();
      try (Statement s = c.createStatement()) {
        s.execute("SET TRANSACTION READ ONLY");
      }
      reset(c, hypopg);
    }
  }
}
