package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.ColumnInfo;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.Identifiers;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Structured filters ({@code [{"column":"country","op":"=","value":"DE"}]}) turned into a
 * WHERE clause: column names are resolved among the visible columns and quoted, operators come
 * from a fixed list, and every value is a bound parameter. No caller text reaches the SQL.
 */
final class Filters {

  static final int MAX_IN_VALUES = 1_000;

  private Filters() {}

  /** Returns {@code " WHERE ..."} (or "") and appends the values to {@code params}. */
  static String where(AgentCore core, TableInfo table, JsonNode filters, List<JsonNode> params) {
    if (filters == null || filters.isNull() || filters.isEmpty()) {
      return "";
    }
    Identifiers ids = core.db().identifiers();
    List<String> conditions = new ArrayList<>();
    for (JsonNode f : filters) {
      ColumnInfo column = core.column(table, f.path("column").asString(null));
      String name = ids.quote(column.name());
      String op = f.path("op").asString("");
      JsonNode value = f.get("value");
      switch (op) {
        case "=", "!=", "<", "<=", ">", ">=" -> {
          scalar(value, op);
          conditions.add(name + " " + (op.equals("!=") ? "<>" : op) + " ?");
          params.add(value);
        }
        case "like", "not like" -> {
          if (value == null || !value.isString()) {
            throw new QueryFailedException("The " + op + " filter needs a string pattern");
          }
          conditions.add(name + (op.equals("like") ? " LIKE ?" : " NOT LIKE ?"));
          params.add(value);
        }
        case "in", "not in" -> {
          if (value == null || !value.isArray() || value.isEmpty()
              || value.size() > MAX_IN_VALUES) {
            throw new QueryFailedException("The " + op + " filter needs a list of 1 to "
                + MAX_IN_VALUES + " values");
          }
          List<String> marks = new ArrayList<>();
          for (JsonNode v : value) {
            scalar(v, op);
            marks.add("?");
            params.add(v);
          }
          conditions.add(name + (op.equals("in") ? " IN (" : " NOT IN (")
              + String.join(", ", marks) + ")");
        }
        case "is null" -> conditions.add(name + " IS NULL");
        case "is not null" -> conditions.add(name + " IS NOT NULL");
        default -> throw new QueryFailedException("Unknown filter operator");
      }
    }
    return " WHERE " + String.join(" AND ", conditions);
  }

  private static void scalar(JsonNode value, String op) {
    if (value == null || value.isNull() || value.isContainer()) {
      throw new QueryFailedException("The " + op + " filter needs a string, number or boolean "
          + "value (use \"is null\" for NULL)");
    }
  }
}
