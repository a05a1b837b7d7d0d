package dev.keel.agent.internal.tools;

/** The JSON Schemas of the agent's tools: what they take and what they return. */
final class Schemas {

  private Schemas() {}

  /**
   * The {@code source} argument every tool takes. Not an enum: the tool list is the same for
   * every caller, and would name sources some of them may not use.
   */
  static final String SOURCE = "\"source\":{\"type\":\"string\",\"description\":\"the "
      + "database to use, by name (list_sources shows yours); your first one when absent\"}";

  /** Returns an object schema with the {@code source} argument added to its properties. */
  static String withSource(String schema) {
    String marker = "\"properties\":{";
    int at = schema.indexOf(marker);
    if (at < 0) {
      throw new IllegalArgumentException("not an object schema with properties: " + schema);
    }
    int end = at + marker.length();
    boolean empty = schema.charAt(end) == '}';
    return schema.substring(0, end) + SOURCE + (empty ? "" : ",") + schema.substring(end);
  }

  static final String FILTERS = "{\"type\":\"array\",\"maxItems\":20,"
      + "\"description\":\"Conditions that must all hold, e.g. "
      + "[{\\\"column\\\":\\\"country\\\",\\\"op\\\":\\\"=\\\",\\\"value\\\":\\\"DE\\\"}]\","
      + "\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"column\":{\"type\":\"string\"},"
      + "\"op\":{\"type\":\"string\",\"enum\":[\"=\",\"!=\",\"<\",\"<=\",\">\",\">=\","
      + "\"like\",\"not like\",\"in\",\"not in\",\"is null\",\"is not null\"]},"
      + "\"value\":{\"description\":\"a string, number, boolean, or for in/not in a list\"}},"
      + "\"required\":[\"column\",\"op\"],\"additionalProperties\":false}}";

  static final String TABLE = "\"table\":{\"type\":\"string\",\"description\":"
      + "\"a table name from list_tables\"}";

  static final String NO_ARGS = "{\"type\":\"object\",\"properties\":{},"
      + "\"additionalProperties\":false}";

  static final String TABLE_ONLY = "{\"type\":\"object\",\"properties\":{" + TABLE + "},"
      + "\"required\":[\"table\"],\"additionalProperties\":false}";

  static final String SAMPLE = "{\"type\":\"object\",\"properties\":{" + TABLE + ","
      + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":10},"
      + "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":200,"
      + "\"description\":\"the columns to show; all visible ones when absent\"},"
      + "\"filters\":" + FILTERS + "},"
      + "\"required\":[\"table\"],\"additionalProperties\":false}";

  static final String COUNT = "{\"type\":\"object\",\"properties\":{" + TABLE + ","
      + "\"filters\":" + FILTERS + "},"
      + "\"required\":[\"table\"],\"additionalProperties\":false}";

  static final String TOP_VALUES = "{\"type\":\"object\",\"properties\":{" + TABLE + ","
      + "\"column\":{\"type\":\"string\"},"
      + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":10},"
      + "\"filters\":" + FILTERS + "},"
      + "\"required\":[\"table\",\"column\"],\"additionalProperties\":false}";

  static final String PARAMS = "\"params\":{\"type\":\"array\",\"maxItems\":100,"
      + "\"description\":\"values for the ? placeholders, in order\","
      + "\"items\":{\"type\":[\"string\",\"number\",\"boolean\",\"null\"]}}";

  static String query(int maxRows) {
    return "{\"type\":\"object\",\"properties\":{"
        + "\"sql\":{\"type\":\"string\",\"description\":\"one read-only query: SELECT, WITH "
        + "... SELECT, VALUES or TABLE; use ? placeholders for values\"},"
        + PARAMS + ","
        + "\"maxRows\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" + maxRows + "}},"
        + "\"required\":[\"sql\"],\"additionalProperties\":false}";
  }

  static final String EXPLAIN = "{\"type\":\"object\",\"properties\":{"
      + "\"sql\":{\"type\":\"string\",\"description\":\"the query to explain (it is not run)\"},"
      + PARAMS + "},\"required\":[\"sql\"],\"additionalProperties\":false}";

  static final String INSERT = "{\"type\":\"object\",\"properties\":{" + TABLE + ","
      + "\"values\":{\"type\":\"object\",\"minProperties\":1,\"maxProperties\":200,"
      + "\"description\":\"column name to value\","
      + "\"additionalProperties\":{\"type\":[\"string\",\"number\",\"boolean\",\"null\"]}}},"
      + "\"required\":[\"table\",\"values\"],\"additionalProperties\":false}";

  static final String UPDATE = "{\"type\":\"object\",\"properties\":{" + TABLE + ","
      + "\"set\":{\"type\":\"object\",\"minProperties\":1,\"maxProperties\":200,"
      + "\"description\":\"column name to new value\","
      + "\"additionalProperties\":{\"type\":[\"string\",\"number\",\"boolean\",\"null\"]}},"
      + "\"filters\":" + FILTERS.replace("\"maxItems\":20,", "\"minItems\":1,\"maxItems\":20,")
      + "},\"required\":[\"table\",\"set\",\"filters\"],\"additionalProperties\":false}";

  // ---- outputs ----

  static final String OUT_TABLES = "{\"type\":\"object\",\"properties\":{"
      + "\"tables\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"name\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
      + "\"description\":{\"type\":[\"string\",\"null\"]},\"columns\":{\"type\":\"integer\"}},"
      + "\"required\":[\"name\",\"kind\",\"columns\"]}}},\"required\":[\"tables\"]}";

  static final String OUT_DESCRIBE = "{\"type\":\"object\",\"properties\":{"
      + "\"table\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
      + "\"description\":{\"type\":[\"string\",\"null\"]},"
      + "\"rowEstimate\":{\"type\":[\"integer\",\"null\"]},"
      + "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"name\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"},"
      + "\"nullable\":{\"type\":\"boolean\"}},\"required\":[\"name\",\"type\",\"nullable\"]}},"
      + "\"primaryKey\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
      + "\"foreignKeys\":{\"type\":\"array\"},\"referencedBy\":{\"type\":\"array\"},"
      + "\"indexes\":{\"type\":\"array\"}},"
      + "\"required\":[\"table\",\"kind\",\"columns\",\"primaryKey\",\"foreignKeys\","
      + "\"referencedBy\",\"indexes\"]}";

  static final String OUT_ROWS = "{\"type\":\"object\",\"properties\":{"
      + "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"name\":{\"type\":\"string\"},\"type\":{\"type\":[\"string\",\"null\"]}},"
      + "\"required\":[\"name\"]}},"
      + "\"rows\":{\"type\":\"array\",\"items\":{\"type\":\"array\"}},"
      + "\"rowCount\":{\"type\":\"integer\"},\"truncated\":{\"type\":\"boolean\"},"
      + "\"truncation\":{\"type\":\"string\",\"description\":\"why and where the result was "
      + "cut\"}},\"required\":[\"columns\",\"rows\",\"rowCount\",\"truncated\"]}";

  static final String OUT_COUNT = "{\"type\":\"object\",\"properties\":{"
      + "\"table\":{\"type\":\"string\"},\"count\":{\"type\":\"integer\"}},"
      + "\"required\":[\"table\",\"count\"]}";

  static final String OUT_TOP = "{\"type\":\"object\",\"properties\":{"
      + "\"table\":{\"type\":\"string\"},\"column\":{\"type\":\"string\"},"
      + "\"rows\":{\"type\":\"integer\",\"description\":\"rows matching the filters\"},"
      + "\"distinct\":{\"type\":\"integer\",\"description\":\"distinct non-null values\"},"
      + "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"value\":{},\"count\":{\"type\":\"integer\"}},\"required\":[\"value\",\"count\"]}}},"
      + "\"required\":[\"table\",\"column\",\"rows\",\"distinct\",\"values\"]}";

  static final String OUT_EXPLAIN = "{\"type\":\"object\",\"properties\":{"
      + "\"format\":{\"type\":\"string\",\"enum\":[\"json\",\"text\"]},"
      + "\"plan\":{\"type\":[\"string\",\"array\"],\"description\":\"the JSON plan "
      + "(PostgreSQL) or the plan's lines\"},"
      + "\"totalCost\":{\"type\":\"number\"},\"estimatedRows\":{\"type\":\"number\"},"
      + "\"truncated\":{\"type\":\"boolean\"}},"
      + "\"required\":[\"plan\",\"truncated\"]}";

  static final String OUT_WRITE = "{\"type\":\"object\",\"properties\":{"
      + "\"table\":{\"type\":\"string\"},\"rowsChanged\":{\"type\":\"integer\"}},"
      + "\"required\":[\"table\",\"rowsChanged\"]}";
}
