package dev.keel.agent.internal.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a MySQL or MariaDB account may do beyond reading, read from {@code SHOW GRANTS} (which
 * every account may run for itself, and which lists global, database, table, column and
 * routine grants and granted roles alike).
 */
final class MySqlPrivileges {

  /** Privileges that only read, or only let the account log in. */
  private static final Set<String> READING = Set.of("SELECT", "USAGE", "SHOW VIEW");

  private MySqlPrivileges() {}

  /** Adds one line per grant that allows more than reading. */
  static void writes(Statement s, List<String> found) throws SQLException {
    try (ResultSet rs = s.executeQuery("SHOW GRANTS")) {
      while (rs.next()) {
        String line = rs.getString(1);
        String more = beyondReading(line);
        if (more != null) {
          found.add(more);
        }
      }
    }
  }

  /** Returns what a {@code GRANT ...} line allows beyond reading, or null. */
  static String beyondReading(String grant) {
    String upper = grant.toUpperCase(Locale.ROOT);
    if (!upper.startsWith("GRANT ")) {
      return null;
    }
    int on = upper.indexOf(" ON ");
    int to = upper.indexOf(" TO ");
    if (on < 0 || (to >= 0 && to < on)) {
      // GRANT role TO account: whatever the role may do
      String role = grant.substring(6, to < 0 ? grant.length() : to).strip();
      return "membership in role(s) " + role + " (their privileges are not listed here)";
    }
    String object = grant.substring(on + 4, to < 0 ? grant.length() : to).strip();
    List<String> writes = new ArrayList<>();
    for (String privilege : privileges(grant.substring(6, on))) {
      if (!READING.contains(privilege)) {
        writes.add(privilege);
      }
    }
    if (upper.contains("WITH GRANT OPTION")) {
      writes.add("GRANT OPTION");
    }
    return writes.isEmpty() ? null : String.join(", ", writes) + " on " + object;
  }

  /** Splits a privilege list at top-level commas ({@code SELECT (a, b)} is one privilege). */
  private static List<String> privileges(String list) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    StringBuilder current = new StringBuilder();
    for (char c : list.toCharArray()) {
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(current.toString().strip().toUpperCase(Locale.ROOT));
        current.setLength(0);
        continue;
      }
      if (depth == 0 && c != ')') {
        current.append(c);
      }
    }
    if (!current.toString().isBlank()) {
      out.add(current.toString().strip().toUpperCase(Locale.ROOT));
    }
    return out;
  }
}
