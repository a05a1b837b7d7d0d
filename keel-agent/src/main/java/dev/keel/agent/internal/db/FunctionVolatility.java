package dev.keel.agent.internal.db;

import dev.keel.agent.internal.sql.FunctionJudge;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judges PostgreSQL functions (and operators, by the function each runs) by their declared
 * volatility ({@code pg_proc.provolatile}), so
 * user-defined and extension functions are refused or allowed by what they say they do rather
 * than by their names. A function that is VOLATILE in any overload may change the database or
 * the session, and is refused unless it is one of a few known to be harmless; IMMUTABLE and
 * STABLE functions only read. Only the schemas on the pinned search path are consulted (the
 * exposed schema and {@code pg_catalog}); a call qualified with any other schema is refused, so
 * nothing outside the exposed schema escapes the judgement. A name unknown to the catalog is
 * left to PostgreSQL, which answers "function does not exist".
 *
 * <p>The catalog is read once and again after {@link #TTL_MILLIS}; a name missing from it is
 * looked up alone (a function created since the last load), and a name missing then too is
 * not asked for again until the next load, so words such as {@code IN} before a parenthesis
 * cost one lookup per load, not one per query.
 */
public final class FunctionVolatility implements FunctionJudge {

  private static final Logger LOG = LoggerFactory.getLogger(FunctionVolatility.class);

  /** How long a loaded catalog is trusted. */
  static final long TTL_MILLIS = 10_000;

  /**
   * VOLATILE because their results differ from call to call, not because they write: waiting
   * (bounded by the statement timeout and the principal's time budget), clocks and random
   * values.
   */
  // (not uuid_generate_v1: it carries the server's MAC address)
  static final Set<String> HARMLESS_VOLATILE = Set.of("random", "random_normal",
      "clock_timestamp", "timeofday", "gen_random_uuid", "uuid_generate_v4", "pg_sleep",
      "pg_sleep_for", "pg_sleep_until");

  // the catalog's names are kept by kind: a function and an operator may share none, but the
  // keys of one map must stay apart
  private static final String FUNCTION = "f:";
  private static final String OPERATOR = "o:";

  private final Database db;
  private Map<String, Boolean> volatileByName = Map.of();
  private long loadedAt;
  // names looked up alone and missing (keywords such as IN or EXISTS before a parenthesis, and
  // syntax such as COALESCE): not asked for again until the next load
  private final Set<String> missed = new java.util.HashSet<>();

  private FunctionVolatility(Database db) {
    this.db = db;
  }

  /** Returns the judge for {@code db}: by volatility on PostgreSQL, allow-all elsewhere. */
  public static FunctionJudge of(Database db) {
    return db.dialect() == Dialect.POSTGRESQL ? new FunctionVolatility(db)
        : FunctionJudge.ALLOW_ALL;
  }

  @Override
  public String refusal(String schema, String name) {
    if (schema != null && !schema.equals(db.schema()) && !schema.equals("pg_catalog")) {
      return "Only functions of the schema " + db.schema() + " and of pg_catalog may be "
          + "called";
    }
    Boolean isVolatile = lookup(FUNCTION + name);
    if (isVolatile == null || !isVolatile || HARMLESS_VOLATILE.contains(name)) {
      return null;
    }
    return "The function " + name + " changes the database or its session (it is declared "
        + "VOLATILE); only functions that read are allowed";
  }

  @Override
  public String operatorRefusal(String schema, String operator) {
    if (schema != null && !schema.equals(db.schema()) && !schema.equals("pg_catalog")) {
      return "Only operators of the schema " + db.schema() + " and of pg_catalog may be used";
    }
    Boolean isVolatile = lookup(OPERATOR + operator);
    if (isVolatile == null || !isVolatile) {
      return null;
    }
    return "The operator " + operator + " runs a function that changes the database or its "
        + "session (declared VOLATILE); only operators that read are allowed";
  }

  private synchronized Boolean lookup(String key) {
    long now = System.currentTimeMillis();
    if (now - loadedAt > TTL_MILLIS) {
      load(now);
    }
    Boolean found = volatileByName.get(key);
    if (found == null && missed.add(key)) {
      // perhaps created since the last load: ask for this one name
      found = single(key);
      if (found != null) {
        Map<String, Boolean> more = new HashMap<>(volatileByName);
        more.put(key, found);
        volatileByName = more;
        missed.remove(key);
      }
    }
    return found;
  }

  private void load(long now) {
    Map<String, Boolean> loaded = read(null);
    volatileByName = Map.copyOf(loaded);
    loadedAt = now;
    missed.clear();
  }

  private Boolean single(String key) {
    return read(key).get(key);
  }

  /**
   * Reads whether each function and operator name (or only the one of {@code key}) has a
   * VOLATILE overload; an operator is as volatile as the function it runs.
   */
  private Map<String, Boolean> read(String key) {
    Map<String, Boolean> loaded = new HashMap<>();
    String kind = key == null ? null : key.substring(0, 2);
    String name = key == null ? null : key.substring(2);
    Connection c = null;
    try {
      c = db.reads().getConnection();
      String functions = "SELECT 'f:' || p.proname, bool_or(p.provolatile = 'v') "
          + "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
          + "WHERE n.nspname IN (?, 'pg_catalog')"
          + (name == null ? "" : " AND p.proname = ?") + " GROUP BY p.proname";
      String operators = "SELECT 'o:' || o.oprname, bool_or(p.provolatile = 'v') "
          + "FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_proc p ON p.oid = o.oprcode "
          + "JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace "
          + "WHERE n.nspname IN (?, 'pg_catalog')"
          + (name == null ? "" : " AND o.oprname = ?") + " GROUP BY o.oprname";
      String sql = kind == null ? functions + " UNION ALL " + operators
          : kind.equals(FUNCTION) ? functions : operators;
      try (PreparedStatement p = c.prepareStatement(sql)) {
        int i = 1;
        for (int part = 0; part < (kind == null ? 2 : 1); part++) {
          p.setString(i++, db.schema());
          if (name != null) {
            p.setString(i++, name);
          }
        }
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            loaded.put(rs.getString(1), rs.getBoolean(2));
          }
        }
      }
      c.rollback();
      return loaded;
    } catch (SQLException e) {
      // without the catalog nothing can be judged: refuse rather than guess
      LOG.warn("the function catalog could not be read: {}", e.toString());
      throw new dev.keel.agent.internal.sql.QueryRefusedException("The functions of the query "
          + "could not be judged (the database catalog could not be read)");
    } finally {
      if (c != null) {
        db.release(c, false);
      }
    }
  }
}
