package dev.keel.agent;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PostgreSQL set-up of the red team that found issue 14: the sample shop plus what an
 * attacker would want, a table {@code secrets}, a column {@code customers.ssn}, a sequence, and
 * a schema {@code app} whose {@code orders} has other columns than {@code public.orders}. The
 * agent's role ({@link TestPostgres#AGENT_USER}) may write everything, so only the agent's own
 * layers stand between a principal and a change. Bob sees {@code customers} without {@code ssn}
 * and {@code orders}; alice sees everything.
 */
final class RedTeamDatabase {

  static final String BOB = "bob-secret";
  static final String ALICE = "alice-secret";
  static final Map<String, String> KEYS = Map.of(BOB, "bob", ALICE, "alice");

  /** Values that must never reach bob. */
  static final String SECRET_PAYLOAD = "top-secret-payload";
  static final String SSN = "078-05-1120";

  private RedTeamDatabase() {}

  /** Returns the JDBC URL of a red-team database named {@code name}, creating it once. */
  static String url(String name) {
    TestPostgres pg = TestPostgres.get();
    String url = pg.database(name);
    try (Connection c = pg.superuser(name); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_class WHERE relname = 'secrets'")) {
        if (rs.next()) {
          return url;
        }
      }
      s.execute("ALTER TABLE customers ADD COLUMN ssn TEXT");
      s.execute("UPDATE customers SET ssn = '" + SSN + "-' || id");
      s.execute("CREATE TABLE secrets (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
      s.execute("INSERT INTO secrets VALUES (1, '" + SECRET_PAYLOAD + "-1'), (2, '"
          + SECRET_PAYLOAD + "-2')");
      s.execute("CREATE SEQUENCE ticket_seq");
      s.execute("CREATE SCHEMA app");
      s.execute("CREATE TABLE app.orders (id INTEGER PRIMARY KEY, status TEXT NOT NULL, "
          + "note TEXT NOT NULL)");
      s.execute("INSERT INTO app.orders VALUES (1, 'app-open', 'only in app'), "
          + "(2, 'app-closed', 'only in app')");
      for (String schema : List.of("public", "app")) {
        s.execute("GRANT USAGE ON SCHEMA " + schema + " TO " + TestPostgres.AGENT_USER);
        s.execute("GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA "
            + schema + " TO " + TestPostgres.AGENT_USER);
        s.execute("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA " + schema + " TO "
            + TestPostgres.AGENT_USER);
      }
      s.execute("GRANT CREATE ON SCHEMA public TO " + TestPostgres.AGENT_USER);
      s.execute("ANALYZE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot set up the red-team database " + name, e);
    }
    return url;
  }

  /** Returns the access policy of the red team's principals. */
  static AccessPolicy policy() {
    return AccessPolicy.builder()
        .grant("bob", "customers", "id", "name", "email", "country", "region_id", "segment",
            "signup_date")
        .grant("bob", "orders")
        .grantAll("alice")
        .build();
  }

  /**
   * Returns everything a write could have changed, as text: every table's rows (hashed), every
   * sequence's position, and the temporary objects and schemas in the catalog.
   */
  static Map<String, String> state(String database) throws SQLException {
    Map<String, String> state = new TreeMap<>();
    try (Connection c = TestPostgres.get().superuser(database);
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT quote_ident(n.nspname) || '.' || "
          + "quote_ident(c.relname), c.relkind FROM pg_class c JOIN pg_namespace n "
          + "ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'app') "
          + "AND c.relkind IN ('r', 'S') ORDER BY 1")) {
        while (rs.next()) {
          tables.add(rs.getString(2) + " " + rs.getString(1));
        }
      }
      for (String t : tables) {
        String name = t.substring(2);
        String sql = t.startsWith("S")
            ? "SELECT last_value || '/' || is_called FROM " + name
            : "SELECT count(*) || '/' || coalesce(md5(string_agg(x::text, '|' ORDER BY "
                + "x::text)), '') FROM " + name + " x";
        try (ResultSet rs = s.executeQuery(sql)) {
          rs.next();
          state.put(name, rs.getString(1));
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class WHERE "
          + "relpersistence = 't'")) {
        rs.next();
        state.put("temporary relations", rs.getString(1));
      }
      try (ResultSet rs = s.executeQuery("SELECT string_agg(nspname, ',' ORDER BY nspname) "
          + "FROM pg_namespace WHERE nspname NOT LIKE 'pg_temp_%' "
          + "AND nspname NOT LIKE 'pg_toast_temp_%'")) {
        rs.next();
        state.put("schemas", rs.getString(1));
      }
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class c JOIN pg_namespace n "
          + "ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'app')")) {
        rs.next();
        state.put("relations", rs.getString(1));
      }
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_proc p JOIN pg_namespace n "
          + "ON n.oid = p.pronamespace WHERE n.nspname IN ('public', 'app')")) {
        rs.next();
        state.put("functions", rs.getString(1));
      }
    }
    return state;
  }
}
