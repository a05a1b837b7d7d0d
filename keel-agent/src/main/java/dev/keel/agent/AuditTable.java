package dev.keel.agent;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A database table the audit trail is written to, beside or instead of the audit file: where
 * an operator already queries its logs, or where several agents' decisions should meet. The
 * connection is the audit trail's own (never one of the read-only connections of a source);
 * give it a role that may only insert into this table. The table is created when missing, with
 * the columns {@code recorded_at, principal, fingerprint, source_name, tool, digest, statement,
 * outcome, reason, millis, row_count}.
 *
 * @param jdbcUrl the database ({@code jdbc:postgresql:}, {@code jdbc:mariadb:},
 *     {@code jdbc:mysql:}, {@code jdbc:sqlite:}, {@code jdbc:h2:})
 * @param user the user, or null
 * @param password the password, or null
 * @param table the table's name, optionally with its schema ({@code audit.keel_audit})
 */
public record AuditTable(String jdbcUrl, String user, String password, String table) {

  /** The table's name when none is given. */
  public static final String DEFAULT_TABLE = "keel_audit";

  private static final Pattern NAME = Pattern.compile(
      "[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

  /** Checks the URL and the table's name. */
  public AuditTable {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    if (!jdbcUrl.startsWith("jdbc:")) {
      throw new IllegalArgumentException("the audit table's jdbcUrl must start with jdbc:, not "
          + "\"" + jdbcUrl + "\"");
    }
    table = table == null ? DEFAULT_TABLE : table;
    if (!NAME.matcher(table).matches()) {
      throw new IllegalArgumentException("the audit table's name must be letters, digits and _ "
          + "(with an optional schema and a dot), not \"" + table + "\"");
    }
  }

  /** Returns an audit table named {@value #DEFAULT_TABLE} in this database. */
  public static AuditTable of(String jdbcUrl, String user, String password) {
    return new AuditTable(jdbcUrl, user, password, DEFAULT_TABLE);
  }

  /** Keeps the password out of logs and error messages. */
  @Override
  public String toString() {
    return "AuditTable[" + jdbcUrl + ", table " + table + "]";
  }
}
