package dev.keel.agent.internal.run;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * Caps every value on the PostgreSQL server, before it crosses the wire. The driver reads each
 * row whole into memory, so a value of 200 MB (one {@code repeat()} is enough) would be held
 * whole however the agent reads it afterwards. The statement is wrapped as
 * {@code SELECT ... FROM (SELECT * FROM (statement) AS keel_inner(c1, ..., cn) OFFSET 0)
 * AS keel_result}, and each column becomes:
 * <ul>
 *   <li>fixed-size types: the value itself;</li>
 *   <li>{@code bytea}: its first bytes and its length;</li>
 *   <li>anything else: the value when its text is at most the cap, else the first characters
 *       of its text, and its length in characters.</li>
 * </ul>
 * {@link BoundedResult} puts each value back together and marks what was cut. The column names
 * and types the caller sees are those of the statement itself.
 */
final class ValueCaps {

  /** How a column is carried. */
  enum Carry {
    /** One column: the value. */
    PLAIN,
    /** Two columns: the leading bytes, the length in bytes. */
    BYTES,
    /** Three columns: the value when small, else the leading text, and its length. */
    TEXT
  }

  private static final Set<String> FIXED = Set.of("bool", "int2", "int4", "int8", "float4",
      "float8", "oid", "date", "time", "timetz", "timestamp", "timestamptz", "uuid", "money",
      "interval", "serial", "bigserial", "smallserial");

  final String sql;
  final Carry[] carry;
  final String[] names;
  final String[] types;

  private ValueCaps(String sql, Carry[] carry, String[] names, String[] types) {
    this.sql = sql;
    this.carry = carry;
    this.names = names;
    this.types = types;
  }

  /**
   * Wraps {@code sql}, whose result columns are described by {@code meta}, so that no value
   * longer than {@code maxChars} characters (or {@code maxChars * 4} bytes) leaves the server.
   */
  static ValueCaps of(String sql, ResultSetMetaData meta, int maxChars) throws SQLException {
    int n = meta.getColumnCount();
    Carry[] carry = new Carry[n];
    String[] names = new String[n];
    String[] types = new String[n];
    long bytes = maxChars * 4L;
    StringBuilder outer = new StringBuilder("SELECT ");
    StringBuilder aliases = new StringBuilder();
    for (int i = 0; i < n; i++) {
      names[i] = meta.getColumnLabel(i + 1);
      types[i] = meta.getColumnTypeName(i + 1);
      String type = types[i] == null ? "" : types[i].toLowerCase(Locale.ROOT);
      String c = "keel_result.\"c" + (i + 1) + "\"";
      if (i > 0) {
        outer.append(", ");
        aliases.append(", ");
      }
      aliases.append("\"c").append(i + 1).append('"');
      if (FIXED.contains(type)) {
        carry[i] = Carry.PLAIN;
        outer.append(c);
      } else if (type.equals("bytea")) {
        carry[i] = Carry.BYTES;
        outer.append("substring(").append(c).append(" FROM 1 FOR ").append(bytes + 1)
            .append("), octet_length(").append(c).append(')');
      } else {
        carry[i] = Carry.TEXT;
        String text = c + "::text";
        outer.append("CASE WHEN octet_length(").append(text).append(") <= ").append(bytes)
            .append(" THEN ").append(c).append(" END, CASE WHEN octet_length(").append(text)
            .append(") > ").append(bytes).append(" THEN substr(").append(text).append(", 1, ")
            .append(maxChars + 1).append(") END, CASE WHEN octet_length(").append(text)
            .append(") > ").append(bytes).append(" THEN char_length(").append(text)
            .append(") END");
      }
    }
    // OFFSET 0 fences the statement off: pulled up into the outer select, each of its
    // expressions would be evaluated once per mention above (five times for a text column)
    outer.append(" FROM (SELECT * FROM (").append(sql).append(") AS keel_inner(")
        .append(aliases).append(") OFFSET 0) AS keel_result");
    return new ValueCaps(outer.toString(), carry, names, types);
  }

  /** Returns how many wrapper columns one row has. */
  int width() {
    int w = 0;
    for (Carry c : carry) {
      w += c == Carry.PLAIN ? 1 : c == Carry.BYTES ? 2 : 3;
    }
    return w;
  }
}
