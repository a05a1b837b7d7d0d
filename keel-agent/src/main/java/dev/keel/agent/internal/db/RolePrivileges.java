package dev.keel.agent.internal.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent's database role may do beyond reading, asked of the database at start-up. The
 * agent's own layers stop writes, but the role's privileges are the last word: a role that
 * could write is named loudly so an operator can give the agent one that cannot (docs/agent.md
 * shows how for each engine).
 */
final class RolePrivileges {

  private RolePrivileges() {}

  /** Returns one line per kind of write the role could make; empty when it can only read. */
  static List<String> writes(Connection c, Dialect dialect) throws SQLException {
    List<String> found = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      if (dialect == Dialect.POSTGRESQL) {
        postgres(s, found);
      } else if (dialect == Dialect.MYSQL) {
        MySqlPrivileges.writes(s, found);
      } else if (dialect == Dialect.H2) {
        h2(s, found);
      } else if (dialect == Dialect.SQLITE) {
        found.addAll(SqlitePins.writes(c));
      }
    } finally {
      c.rollback();
    }
    return found;
  }

  private static void postgres(Statement s, List<String> found) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT rolsuper, rolcreaterole, rolcreatedb, "
        + "rolbypassrls, rolreplication FROM pg_catalog.pg_roles WHERE rolname = current_user")) {
      if (rs.next()) {
        String[] names = {"SUPERUSER", "CREATEROLE", "CREATEDB", "BYPASSRLS", "REPLICATION"};
        for (int i = 0; i < names.length; i++) {
          if (rs.getBoolean(i + 1)) {
            found.add("the role has " + names[i]);
          }
        }
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT p.privilege, count(*), "
        + "string_agg(quote_ident(n.nspname) || '.' || quote_ident(c.relname), ', ' "
        + "ORDER BY n.nspname, c.relname) FROM pg_catalog.pg_class c "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "CROSS JOIN (VALUES ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'), ('TRIGGER'), "
        + "('REFERENCES')) p(privilege) WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') "
        + "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        + "AND n.nspname NOT LIKE 'pg\\_%' AND has_table_privilege(c.oid, p.privilege) "
        + "GROUP BY p.privilege ORDER BY p.privilege")) {
      while (rs.next()) {
        found.add(rs.getString(1) + " on " + rs.getLong(2) + " table(s): "
            + abbreviate(rs.getString(3)));
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT count(*), string_agg(quote_ident(n.nspname) || "
        + "'.' || quote_ident(c.relname), ', ' ORDER BY n.nspname, c.relname) "
        + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind = 'S' AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        + "AND (has_sequence_privilege(c.oid, 'UPDATE') OR has_sequence_privilege(c.oid, "
        + "'USAGE'))")) {
      if (rs.next() && rs.getLong(1) > 0) {
        found.add("USAGE or UPDATE (nextval) on " + rs.getLong(1) + " sequence(s): "
            + abbreviate(rs.getString(2)));
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT string_agg(quote_ident(nspname), ', ' "
        + "ORDER BY nspname) FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE 'pg\\_%' "
        + "AND nspname <> 'information_schema' AND has_schema_privilege(oid, 'CREATE')")) {
      if (rs.next() && rs.getString(1) != null) {
        found.add("CREATE on schema(s): " + abbreviate(rs.getString(1)));
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT has_database_privilege(current_database(), "
        + "'CREATE'), has_database_privilege(current_database(), 'TEMPORARY')")) {
      if (rs.next()) {
        if (rs.getBoolean(1)) {
          found.add("CREATE on the database");
        }
        if (rs.getBoolean(2)) {
          found.add("TEMPORARY on the database (temporary tables; granted to PUBLIC by "
              + "default)");
        }
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT string_agg(r, ', ' ORDER BY r) FROM unnest("
        + "ARRAY['pg_write_all_data', 'pg_write_server_files', 'pg_execute_server_program', "
        + "'pg_signal_backend', 'pg_read_server_files']) r WHERE EXISTS (SELECT 1 FROM "
        + "pg_catalog.pg_roles WHERE rolname = r) AND pg_has_role(current_user, r, 'MEMBER')")) {
      if (rs.next() && rs.getString(1) != null) {
        found.add("membership in " + rs.getString(1));
      }
    }
  }

  private static void h2(Statement s, List<String> found) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT IS_ADMIN FROM INFORMATION_SCHEMA.USERS "
        + "WHERE USER_NAME = CURRENT_USER")) {
      if (rs.next() && rs.getBoolean(1)) {
        found.add("the user is an H2 administrator (it may do anything)");
      }
    }
    try (ResultSet rs = s.executeQuery("SELECT PRIVILEGE_TYPE, count(*) FROM "
        + "INFORMATION_SCHEMA.TABLE_PRIVILEGES WHERE GRANTEE = CURRENT_USER "
        + "AND PRIVILEGE_TYPE <> 'SELECT' GROUP BY PRIVILEGE_TYPE ORDER BY 1")) {
      while (rs.next()) {
        found.add(rs.getString(1) + " on " + rs.getLong(2) + " table(s)");
      }
    }
  }

  private static String abbreviate(String list) {
    return list == null ? "" : list.length() > 200 ? list.substring(0, 200) + "..." : list;
  }
}
