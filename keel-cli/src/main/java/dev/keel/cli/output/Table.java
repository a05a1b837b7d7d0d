package dev.keel.cli.output;

import dev.keel.mcp.core.McpJson;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Rows printed as an aligned table: a header, a rule, one line per row, and a count. Every
 * column starts at the same offset on every line; a cell wider than its column is cut with
 * {@code …}, a SQL NULL (JSON null) shows as {@code NULL}, and a missing value as nothing.
 *
 * <p>Recognises the shapes tools answer with: {@code {"columns": [...], "rows": [[...]]}} (the
 * database agent's {@code query}; a column is a name or {@code {"name": ...}}), an array of
 * objects, and an object holding one such array beside plain fields.
 *
 * <pre>{@code
 * Table table = Table.of(result.structuredContent());
 * if (table != null) {
 *   table.print(System.out, Table.MAX_COLUMN, Terminals.width());
 * }
 * }</pre>
 */
public final class Table {

  /** The widest a column is drawn, in characters, unless the terminal is narrower. */
  public static final int MAX_COLUMN = 40;

  private static final String GAP = "  ";
  private static final String NULL = "NULL";

  private final List<String> header;
  private final List<List<String>> rows;
  private final List<String> notes;

  private Table(List<String> header, List<List<String>> rows, List<String> notes) {
    this.header = header;
    this.rows = rows;
    this.notes = notes;
  }

  /** Returns the rows in {@code value} as a table, or null when it holds no rows. */
  public static Table of(JsonNode value) {
    if (value == null) {
      return null;
    }
    JsonNode columns = value.get("columns");
    JsonNode rows = value.get("rows");
    if (value.isObject() && columns != null && columns.isArray() && rows != null
        && rows.isArray()) {
      return columnsAndRows(value, columns, rows);
    }
    if (objects(value)) {
      return objectRows(value, List.of());
    }
    if (value.isObject()) {
      JsonNode only = null;
      List<String> notes = new ArrayList<>();
      for (Map.Entry<String, JsonNode> p : value.properties()) {
        if (objects(p.getValue()) && only == null) {
          only = p.getValue();
        } else if (p.getValue().isValueNode() || p.getValue().isNull()) {
          notes.add(TerminalText.firstLine(p.getKey(), 40) + ": " + cell(p.getValue()));
        } else {
          return null; // more structure than one table shows
        }
      }
      return only == null ? null : objectRows(only, notes);
    }
    return null;
  }

  private static boolean objects(JsonNode value) {
    if (!value.isArray() || value.isEmpty()) {
      return false;
    }
    for (JsonNode row : value) {
      if (!row.isObject()) {
        return false;
      }
    }
    return true;
  }

  private static Table columnsAndRows(JsonNode value, JsonNode columns, JsonNode rows) {
    List<String> header = new ArrayList<>();
    for (JsonNode c : columns) {
      header.add(TerminalText.firstLine(c.isObject() ? c.path("name").asString("?")
          : c.asString(c.toString()), 200));
    }
    List<List<String>> lines = new ArrayList<>();
    for (JsonNode row : rows) {
      List<String> cells = new ArrayList<>();
      for (int i = 0; i < header.size(); i++) {
        cells.add(row.isArray() ? (i < row.size() ? cell(row.get(i)) : "")
            : row.isObject() ? cell(row.get(header.get(i))) : "");
      }
      lines.add(cells);
    }
    List<String> notes = new ArrayList<>();
    JsonNode truncation = value.get("truncation");
    if (truncation != null && truncation.isString()) {
      notes.add(TerminalText.firstLine(truncation.asString(), 300));
    } else if (value.path("truncated").asBoolean(false)) {
      notes.add("TRUNCATED: the server cut the result");
    }
    return new Table(header, lines, notes);
  }

  private static Table objectRows(JsonNode array, List<String> notes) {
    Set<String> names = new LinkedHashSet<>();
    array.forEach(row -> names.addAll(row.propertyNames()));
    List<String> keys = new ArrayList<>(names);
    List<String> header = new ArrayList<>();
    keys.forEach(k -> header.add(TerminalText.firstLine(k, 200)));
    List<List<String>> lines = new ArrayList<>();
    for (JsonNode row : array) {
      List<String> cells = new ArrayList<>();
      for (String k : keys) {
        cells.add(row.has(k) ? cell(row.get(k)) : "");
      }
      lines.add(cells);
    }
    return new Table(header, lines, notes);
  }

  /** Returns a table of plain text cells (made safe here), one list per row. */
  public static Table ofCells(List<String> header, List<List<String>> rows) {
    List<List<String>> safe = new ArrayList<>();
    for (List<String> row : rows) {
      List<String> cells = new ArrayList<>();
      row.forEach(c -> cells.add(TerminalText.firstLine(c, 10_000)));
      safe.add(cells);
    }
    return new Table(List.copyOf(header), safe, List.of());
  }

  /** One value as one line of safe text. */
  private static String cell(JsonNode v) {
    if (v == null) {
      return "";
    }
    if (v.isNull()) {
      return NULL;
    }
    String text = v.isString() ? v.asString() : v.isValueNode() ? v.asString(v.toString())
        : McpJson.standard().write(v);
    // one line per row: a newline inside a value would break the alignment
    return TerminalText.safe(text.replace("\r\n", "\n").replace('\n', '⏎').replace('\t', ' '));
  }

  /** Returns the number of rows. */
  public int size() {
    return rows.size();
  }

  /**
   * Prints the table.
   *
   * @param maxColumn the widest any column is drawn
   * @param maxWidth the widest a line may be (the terminal's width), or 0 for no limit
   */
  public void print(PrintStream out, int maxColumn, int maxWidth) {
    int n = header.size();
    int[] width = new int[n];
    for (int i = 0; i < n; i++) {
      width[i] = Math.min(maxColumn, length(header.get(i)));
      for (List<String> row : rows) {
        width[i] = Math.max(width[i], Math.min(maxColumn, length(row.get(i))));
      }
      width[i] = Math.max(1, width[i]);
    }
    if (maxWidth > 0) {
      // narrow the widest column, one character at a time, until the line fits
      while (total(width) > maxWidth) {
        int widest = 0;
        for (int i = 1; i < n; i++) {
          if (width[i] > width[widest]) {
            widest = i;
          }
        }
        if (width[widest] <= 4) {
          break; // too many columns to fit: let the terminal wrap rather than show nothing
        }
        width[widest]--;
      }
    }
    out.println(line(header, width));
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < n; i++) {
      rule.append(i == 0 ? "" : GAP).append("-".repeat(width[i]));
    }
    out.println(rule);
    for (List<String> row : rows) {
      out.println(line(row, width));
    }
    out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    for (String note : notes) {
      out.println(note);
    }
  }

  private static int total(int[] width) {
    int sum = GAP.length() * Math.max(0, width.length - 1);
    for (int w : width) {
      sum += w;
    }
    return sum;
  }

  private static String line(List<String> cells, int[] width) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < width.length; i++) {
      String fitted = fit(cells.get(i), width[i]);
      b.append(fitted);
      if (i < width.length - 1) {
        b.append(" ".repeat(width[i] - length(fitted))).append(GAP);
      }
    }
    return b.toString().stripTrailing();
  }

  private static String fit(String text, int width) {
    if (length(text) <= width) {
      return text;
    }
    int end = text.offsetByCodePoints(0, width - 1);
    return text.substring(0, end) + "…";
  }

  private static int length(String text) {
    return text.codePointCount(0, text.length());
  }
}
