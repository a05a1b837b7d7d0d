package dev.keel.agent.internal;

import dev.keel.agent.AccessPolicy;
import dev.keel.agent.AgentLimits;
import dev.keel.agent.TableAccess;
import dev.keel.agent.internal.audit.AuditTrail;
import dev.keel.agent.internal.db.Catalog;
import dev.keel.agent.internal.db.RowRules;
import dev.keel.agent.internal.db.ColumnInfo;
import dev.keel.agent.internal.db.Database;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.run.QueryRunner;
import dev.keel.agent.internal.sql.CheckedQuery;
import dev.keel.agent.internal.sql.QueryCheck;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.agent.internal.sql.StatementTooDeepException;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.server.RequestContext;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every tool, resource and prompt of the agent shares: the database, its catalog, the
 * runner, the check, and the view of the schema the calling principal may see.
 */
public final class AgentCore {

  /** The one answer for a table that does not exist and one the caller may not see. */
  public static final String NO_TABLE = "Table not found or not allowed";
  /** The one answer for a column that does not exist and one the caller may not see. */
  public static final String NO_COLUMN = "Column not found or not allowed";

  private final String name;
  private final AuditTrail audit;
  private final Database db;
  private final Catalog catalog;
  private final QueryRunner runner;
  private final QueryCheck check;
  private final AccessPolicy policy;
  private final AgentLimits limits;

  /**
   * Wires the parts of one source together and checks its policy's row rules against the
   * database.
   *
   * @throws IllegalArgumentException naming the principal and table of a rule the agent
   *     cannot use
   */
  public AgentCore(String name, Database db, AccessPolicy policy, AgentLimits limits,
      AuditTrail audit) {
    this.name = name;
    this.audit = audit;
    this.db = db;
    this.catalog = new Catalog(db);
    this.runner = new QueryRunner(db, limits);
    this.check = new QueryCheck(db.dialect(), db.identifiers(), db.schema(),
        dev.keel.agent.internal.db.FunctionVolatility.of(db));
    this.policy = policy;
    this.limits = limits;
    checkRowRules();
  }

  /**
   * Each rule must be a condition over its own table alone: read by the statement check as the
   * WHERE clause of a query that may see nothing else, so a rule cannot read another table,
   * call a function that changes anything, or break out of its parentheses.
   */
  private void checkRowRules() {
    for (Map.Entry<String, TableAccess> entry : policy.principals().entrySet()) {
      for (Map.Entry<String, String> rule : entry.getValue().rowsByTable().entrySet()) {
        String where = "source " + name + ", principal " + entry.getKey() + ", table "
            + rule.getKey();
        TableInfo table;
        try {
          table = catalog.tables().values().stream()
              .filter(t -> t.name().toLowerCase(Locale.ROOT).equals(rule.getKey()))
              .findFirst().orElseThrow(() -> new IllegalArgumentException(where
                  + ": the row rule names a table the database does not have"));
        } catch (SQLException e) {
          throw new IllegalStateException(where + ": the catalog could not be read", e);
        }
        try {
          balanced(RowRules.sample(rule.getValue()));
          check.check("SELECT 1 FROM " + db.identifiers().quote(table.name()) + " WHERE "
              + RowRules.sample(rule.getValue()), Set.of(table.name()), Set.of());
        } catch (QueryRefusedException | StatementTooDeepException e) {
          throw new IllegalArgumentException(where + ": the row rule \"" + rule.getValue()
              + "\" is not a condition the agent can use: " + e.getMessage());
        }
      }
    }
  }

  /** Returns where decisions are recorded. */
  public AuditTrail audit() {
    return audit;
  }

  /**
   * A rule is put in parentheses wherever it goes; one that closes them early ({@code 1 = 1) OR
   * (1 = 1}) would reach out of a longer condition, so its own parentheses must stay inside.
   */
  private void balanced(String wrapped) {
    int depth = 0;
    java.util.List<dev.keel.agent.internal.sql.SqlToken> tokens = check.lexer().lex(wrapped);
    for (int i = 0; i < tokens.size(); i++) {
      if (tokens.get(i).is("(")) {
        depth++;
      } else if (tokens.get(i).is(")")) {
        depth--;
        if (depth == 0 && i != tokens.size() - 1) {
          throw new QueryRefusedException("its parentheses close before its end");
        }
      }
    }
  }

  /** Returns the source's name. */
  public String name() {
    return name;
  }

  /** Returns true when the calling principal may use this source at all. */
  public boolean admits(RequestContext ctx) {
    return policy.admits(ctx.principal().id());
  }

  /** Returns the access policy. */
  public AccessPolicy policy() {
    return policy;
  }

  /** Returns the statement check. */
  public QueryCheck check() {
    return check;
  }

  /** Returns the database. */
  public Database db() {
    return db;
  }

  /** Returns the catalog. */
  public Catalog catalog() {
    return catalog;
  }

  /** Returns the runner. */
  public QueryRunner runner() {
    return runner;
  }

  /** Returns the limits. */
  public AgentLimits limits() {
    return limits;
  }

  /** Returns the schema as the calling principal sees it. */
  public VisibleSchema visible(RequestContext ctx) {
    try {
      return VisibleSchema.of(catalog.tables(), policy.accessFor(ctx.principal().id()),
          ctx.principal());
    } catch (SQLException e) {
      throw new QueryFailedException("The database catalog could not be read");
    }
  }

  /** Returns the visible table named {@code requested}, or fails with {@link #NO_TABLE}. */
  public TableInfo table(VisibleSchema visible, String requested) {
    return visible.table(requested).orElseThrow(() -> new QueryFailedException(NO_TABLE));
  }

  /** Returns the visible column named {@code requested}, or fails with {@link #NO_COLUMN}. */
  public ColumnInfo column(TableInfo table, String requested) {
    return table.column(requested).orElseThrow(() -> new QueryFailedException(NO_COLUMN));
  }

  /**
   * Checks a caller's SQL and returns what to run: the statement itself, where every mention
   * of a table with hidden columns is replaced by a subquery of its visible columns under the
   * same name. The database then resolves {@code *}, whole-row references and every column
   * name against the visible columns only. (A WITH query of the table's name would do the same
   * on PostgreSQL, but H2 resolves a real table before a WITH query.)
   */
  public Checked checked(String sql, VisibleSchema visible, int parameters) {
    CheckedQuery q;
    try {
      q = check.check(sql, visible.names(), visible.restricted());
    } catch (StatementTooDeepException e) {
      // a malformed argument rather than a refused statement (-32602)
      throw new McpException(ErrorCodes.INVALID_PARAMS, "Invalid params: sql: " + e.getMessage());
    }
    if (q.parameters() != parameters) {
      throw new QueryFailedException("The query has " + q.parameters() + " ? parameter"
          + (q.parameters() == 1 ? "" : "s") + " but " + parameters + " value"
          + (parameters == 1 ? " was" : "s were") + " given");
    }
    // the real tables read, narrowed or not: the subqueries read the same tables
    return new Checked(q.apply(n -> narrowing(visible.table(n.table()).orElseThrow(),
        n.alias())), q.tables());
  }

  /**
   * A caller's statement ready to run.
   *
   * @param sql the text to run
   * @param tables the tables it reads, by their database names
   */
  public record Checked(String sql, List<String> tables) {}

  private String narrowing(TableInfo table, String alias) {
    String columns = table.columns().stream().map(c -> db.identifiers().quote(c.name()))
        .collect(Collectors.joining(", "));
    return "(SELECT " + columns + " FROM " + db.qualified(table.name())
        + (table.rowFilter() == null ? "" : " WHERE " + table.rowFilter()) + ") AS " + alias;
  }

  /**
   * Returns what the agent's own statements read a visible table from: its qualified name, or,
   * when some of its rows are hidden, a subquery of the visible rows under the table's name.
   */
  public String relation(TableInfo table) {
    if (table.rowFilter() == null) {
      return db.qualified(table.name());
    }
    return "(SELECT * FROM " + db.qualified(table.name()) + " WHERE " + table.rowFilter()
        + ") AS " + db.identifiers().quote(table.name());
  }

  /** Returns the visible tables as JSON: name, kind, description, column count. */
  public ArrayNode tableList(VisibleSchema visible) {
    ArrayNode tables = JsonNodeFactory.instance.arrayNode();
    for (TableInfo t : visible.tables()) {
      ObjectNode o = tables.addObject();
      o.put("name", t.name());
      o.put("kind", t.kind());
      o.put("description", t.description());
      o.put("columns", t.columns().size());
    }
    return tables;
  }

  /**
   * Describes a visible table: visible columns, and the keys and indexes that involve only
   * visible tables and columns.
   */
  public ObjectNode describe(VisibleSchema visible, TableInfo table) {
    Catalog.Keys keys;
    Long estimate;
    try {
      keys = catalog.keys(table.name());
      // the catalog's estimate counts every row; one that hides rows has none to give
      estimate = table.rowFilter() == null ? catalog.rowEstimate(table.name()) : null;
    } catch (SQLException e) {
      throw new QueryFailedException("The database catalog could not be read");
    }
    Set<String> columns = Set.copyOf(table.columnNames());
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("table", table.name());
    o.put("kind", table.kind());
    o.put("description", table.description());
    if (estimate == null) {
      o.putNull("rowEstimate");
    } else {
      o.put("rowEstimate", estimate);
    }
    ArrayNode cols = o.putArray("columns");
    for (ColumnInfo c : table.columns()) {
      ObjectNode col = cols.addObject();
      col.put("name", c.name());
      col.put("type", c.type());
      col.put("nullable", c.nullable());
      if (c.defaultValue() != null) {
        col.put("default", c.defaultValue());
      }
      if (c.description() != null) {
        col.put("description", c.description());
      }
    }
    ArrayNode pk = o.putArray("primaryKey");
    if (columns.containsAll(keys.primaryKey())) {
      keys.primaryKey().forEach(pk::add);
    }
    ArrayNode fks = o.putArray("foreignKeys");
    for (Catalog.ForeignKey fk : keys.foreignKeys()) {
      if (columns.containsAll(fk.columns()) && visibleColumns(visible, fk.table(),
          fk.referencedColumns())) {
        ObjectNode k = fks.addObject();
        fk.columns().forEach(k.putArray("columns")::add);
        k.put("references", fk.table());
        fk.referencedColumns().forEach(k.putArray("referencedColumns")::add);
      }
    }
    ArrayNode refs = o.putArray("referencedBy");
    for (Catalog.ForeignKey fk : keys.referencedBy()) {
      if (columns.containsAll(fk.referencedColumns()) && visibleColumns(visible, fk.table(),
          fk.columns())) {
        ObjectNode k = refs.addObject();
        k.put("table", fk.table());
        fk.columns().forEach(k.putArray("columns")::add);
        fk.referencedColumns().forEach(k.putArray("referencedColumns")::add);
      }
    }
    ArrayNode idx = o.putArray("indexes");
    for (Catalog.Index index : keys.indexes()) {
      if (columns.containsAll(index.columns())) {
        ObjectNode i = idx.addObject();
        i.put("name", index.name());
        index.columns().forEach(i.putArray("columns")::add);
        i.put("unique", index.unique());
      }
    }
    return o;
  }

  private static boolean visibleColumns(VisibleSchema visible, String table,
      List<String> columns) {
    Optional<TableInfo> other = visible.names().contains(table) ? visible.table(table)
        : Optional.empty();
    return other.isPresent() && other.get().columnNames().containsAll(columns);
  }
}
