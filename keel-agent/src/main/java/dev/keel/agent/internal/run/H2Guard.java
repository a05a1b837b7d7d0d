package dev.keel.agent.internal.run;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Set;
import org.h2.command.Command;
import org.h2.command.CommandContainer;
import org.h2.engine.DbObject;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.table.CTE;
import org.h2.table.DerivedTable;
import org.h2.table.DualTable;
import org.h2.table.FunctionTable;
import org.h2.table.TableValueConstructorTable;
import org.h2.table.RangeTable;
import org.h2.table.Table;

/**
 * The second layer on an embedded H2, asked of H2's own parser before the statement runs: it
 * must be exactly one command (H2 would run every statement of a list), a query, read-only as
 * H2 itself judges it (no sequence, file, variable or session function), and the tables of the
 * exposed schema it depends on must be among those the check allowed. H2 resolves names its own
 * way (a real table before a WITH query of the same name), so this is the engine's answer, not
 * the check's. Remote H2 sessions have no local parser; for them the check and the user's
 * privileges remain.
 */
final class H2Guard {

  private H2Guard() {}

  /** Returns null when H2 reads {@code sql} as one read-only query on allowed tables. */
  static String refusal(Connection c, String sql, String schema, Collection<String> tables)
      throws SQLException {
    Session session = c.unwrap(JdbcConnection.class).getSession();
    if (!(session instanceof SessionLocal local)) {
      return null;
    }
    Command command;
    try {
      command = local.prepareLocal(sql);
    } catch (org.h2.message.DbException e) {
      // H2's own parser throws its internal exception; as an SQLException it gets the same
      // peer-safe message as every other database error (an unknown column and a hidden one
      // read alike), instead of escaping as a failure of the tool
      throw e.getSQLException();
    }
    try {
      if (!(command instanceof CommandContainer)) {
        return "H2 reads more than one statement in it";
      }
      if (!command.isQuery()) {
        return "H2 does not read it as a query";
      }
      if (!command.isReadOnly()) {
        return "H2 judges it not read-only";
      }
      if (tables != null) {
        Set<DbObject> dependencies = command.getDependencies();
        for (DbObject d : dependencies) {
          if (d instanceof Table t && !holdsNoData(t)
              && !(t.getSchema() != null && t.getSchema().getName().equals(schema)
                  && tables.contains(t.getName()))) {
            return "it reads a table the check did not allow";
          }
        }
      }
      return null;
    } finally {
      command.close();
    }
  }

  /**
   * The statement's own constructs: subqueries, WITH queries, VALUES, DUAL, SYSTEM_RANGE and
   * UNNEST. Everything else is data the check must have allowed: tables and views, but also
   * linked tables, CSVREAD, Java table functions and data-change delta tables, all refused.
   */
  private static boolean holdsNoData(Table t) {
    if (t instanceof DerivedTable || t instanceof CTE || t instanceof DualTable
        || t instanceof RangeTable || t instanceof TableValueConstructorTable) {
      return true;
    }
    return t instanceof FunctionTable && (t.getName().equalsIgnoreCase("UNNEST")
        || t.getName().equalsIgnoreCase("TABLE") || t.getName().equalsIgnoreCase("TABLE_DISTINCT"));
  }
}
