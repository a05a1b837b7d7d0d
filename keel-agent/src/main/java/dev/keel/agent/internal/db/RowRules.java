package dev.keel.agent.internal.db;

import dev.keel.mcp.server.Principal;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a row rule of the access policy into the SQL condition one principal's reads are
 * narrowed by. Placeholders become literals written here, never text from the claim: a string
 * claim becomes a standard SQL string (quotes doubled; every engine the agent serves is pinned
 * to read it that way), a number its plain decimal form, a list a parenthesised list for
 * {@code IN}. A claim that is missing, null or of any other shape makes the whole condition
 * false: a principal whose token does not say which rows are its own sees none, which is the
 * answer an empty table gives.
 */
public final class RowRules {

  /** {@code ${claims.NAME}} or {@code ${principal.id}}. */
  static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(claims\\.([A-Za-z0-9_:./-]+)"
      + "|principal\\.id)}");

  /** The condition no row meets. */
  static final String NO_ROWS = "1 = 0";

  private RowRules() {}

  /** Returns the rule with the principal's values in it, parenthesised. */
  public static String render(String rule, Principal principal) {
    Matcher m = PLACEHOLDER.matcher(rule);
    StringBuilder out = new StringBuilder("(");
    int last = 0;
    while (m.find()) {
      out.append(rule, last, m.start());
      Object value = m.group(2) == null ? principal.id() : claim(principal.claims(), m.group(2));
      String literal = literal(value);
      if (literal == null) {
        return "(" + NO_ROWS + ")";
      }
      out.append(literal);
      last = m.end();
    }
    out.append(rule.substring(last)).append(')');
    return out.toString();
  }

  /**
   * Returns the rule with every placeholder replaced by a typed stand-in, so the statement
   * check can read it when the policy is loaded.
   */
  public static String sample(String rule) {
    return "(" + PLACEHOLDER.matcher(rule).replaceAll("NULL") + ")";
  }

  /** A claim by name; a dotted name reaches into nested objects ({@code org.id}). */
  private static Object claim(Map<String, Object> claims, String name) {
    if (claims.containsKey(name)) {
      return claims.get(name);
    }
    Object at = claims;
    for (String part : name.split("\\.")) {
      if (!(at instanceof Map<?, ?> map)) {
        return null;
      }
      at = map.get(part);
    }
    return at;
  }

  static String literal(Object value) {
    if (value instanceof String s) {
      if (s.indexOf('\0') >= 0) {
        return null;
      }
      return "'" + s.replace("'", "''") + "'";
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short
        || value instanceof BigInteger) {
      return value.toString();
    }
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d) ? BigDecimal.valueOf(d).toPlainString() : null;
    }
    if (value instanceof Boolean b) {
      // a comparison, not TRUE/FALSE: every engine reads 1 = 1
      return b ? "(1 = 1)" : "(1 = 0)";
    }
    if (value instanceof Collection<?> list) {
      if (list.isEmpty()) {
        return "(NULL)";
      }
      StringBuilder items = new StringBuilder();
      for (Object item : list) {
        String one = item instanceof Collection<?> ? null : literal(item);
        if (one == null) {
          return null;
        }
        items.append(items.length() == 0 ? "" : ", ").append(one);
      }
      return "(" + items + ")";
    }
    return null;
  }
}
