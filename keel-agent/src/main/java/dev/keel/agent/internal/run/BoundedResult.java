package dev.keel.agent.internal.run;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Base64;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a result set into JSON without ever holding more than the limits allow: rows are read
 * one at a time and counted in rows and in serialized bytes, long values are cut, and reading
 * stops at the first limit reached. The result says whether and why it was cut.
 */
final class BoundedResult {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int MAX_ARRAY_ELEMENTS = 1_000;

  private final int maxRows;
  private final long maxBytes;
  private final int maxCellChars;
  private final CancellationToken cancellation;
  private final ValueCaps caps;
  private int cutValues;

  /**
   * Creates a reader.
   *
   * @param caps how the server capped the values, or null when the result set holds them as
   *     they are
   */
  BoundedResult(int maxRows, long maxBytes, int maxCellChars, CancellationToken cancellation,
      ValueCaps caps) {
    this.maxRows = maxRows;
    this.maxBytes = maxBytes;
    this.maxCellChars = maxCellChars;
    this.cancellation = cancellation;
    this.caps = caps;
  }

  /** Reads {@code rs} into {@code {columns, rows, rowCount, truncated[, truncation]}}. */
  ObjectNode read(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    int n = caps != null ? caps.names.length : meta.getColumnCount();
    ObjectNode result = NODES.objectNode();
    ArrayNode columns = result.putArray("columns");
    for (int i = 1; i <= n; i++) {
      ObjectNode c = columns.addObject();
      c.put("name", caps != null ? caps.names[i - 1] : meta.getColumnLabel(i));
      c.put("type", caps != null ? caps.types[i - 1] : meta.getColumnTypeName(i));
    }
    ArrayNode rows = NODES.arrayNode();
    long bytes = McpJson.standard().write(columns).length() + 64;
    String cut = null;
    while (rs.next()) {
      if (rows.size() == maxRows) {
        cut = "the result has more than " + maxRows + " rows (the row limit); it stops there";
        break;
      }
      ArrayNode row = NODES.arrayNode();
      if (caps == null) {
        for (int i = 1; i <= n; i++) {
          row.add(value(rs, i));
        }
      } else {
        capped(rs, row);
      }
      long size = McpJson.standard().write(row).getBytes(StandardCharsets.UTF_8).length + 1L;
      if (bytes + size > maxBytes) {
        cut = "the result is larger than " + maxBytes + " bytes (the size limit); it stops "
            + "after " + rows.size() + " rows";
        break;
      }
      bytes += size;
      rows.add(row);
      if (rows.size() % 64 == 0) {
        cancellation.throwIfCancelled();
      }
    }
    result.set("rows", rows);
    result.put("rowCount", rows.size());
    boolean truncated = cut != null || cutValues > 0;
    result.put("truncated", truncated);
    if (truncated) {
      StringBuilder why = new StringBuilder("TRUNCATED: ");
      if (cut != null) {
        why.append(cut);
      }
      if (cutValues > 0) {
        why.append(cut != null ? "; " : "").append(cutValues).append(cutValues == 1
            ? " value was" : " values were").append(" cut at ").append(maxCellChars)
            .append(" characters");
      }
      result.put("truncation", why.append('.').toString());
    }
    return result;
  }

  /** Marks {@code result} as cut for a reason found after its rows were read. */
  static void serverCut(ObjectNode result, String why) {
    String before = result.path("truncation").asString("");
    result.put("truncated", true);
    result.put("truncation", before.isEmpty() ? "TRUNCATED: " + why + "."
        : before.substring(0, before.length() - 1) + "; " + why + ".");
  }

  /** Puts a row of server-capped values back together (see {@link ValueCaps}). */
  private void capped(ResultSet rs, ArrayNode row) throws SQLException {
    int k = 1;
    for (ValueCaps.Carry carry : caps.carry) {
      switch (carry) {
        case PLAIN -> row.add(value(rs, k++));
        case BYTES -> {
          byte[] bytes = rs.getBytes(k++);
          long length = rs.getLong(k++);
          row.add(bytes == null ? NODES.nullNode() : binary(bytes, length));
        }
        case TEXT -> {
          JsonNode whole = value(rs, k++);
          String head = rs.getString(k++);
          long length = rs.getLong(k++);
          if (head == null) {
            row.add(whole);
          } else {
            row.add(text(head, length));
          }
        }
        default -> throw new IllegalStateException(carry.toString());
      }
    }
  }

  private JsonNode value(ResultSet rs, int i) throws SQLException {
    Object v = rs.getObject(i);
    if (v == null) {
      return NODES.nullNode();
    }
    return convert(v);
  }

  private JsonNode convert(Object v) throws SQLException {
    if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return NODES.numberNode(((Number) v).longValue());
    }
    if (v instanceof BigInteger b) {
      return NODES.numberNode(b);
    }
    if (v instanceof BigDecimal d) {
      return NODES.numberNode(d);
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? NODES.numberNode(d) : NODES.stringNode(Double.toString(d));
    }
    if (v instanceof java.sql.Timestamp t) {
      return NODES.stringNode(t.toLocalDateTime().toString());
    }
    if (v instanceof java.sql.Date d) {
      return NODES.stringNode(d.toLocalDate().toString());
    }
    if (v instanceof java.sql.Time t) {
      return NODES.stringNode(t.toLocalTime().toString());
    }
    if (v instanceof byte[] bytes) {
      return binary(bytes, bytes.length);
    }
    if (v instanceof Clob clob) {
      try (Reader reader = clob.getCharacterStream()) {
        char[] buffer = new char[maxCellChars + 1];
        int read = 0;
        int r;
        while (read < buffer.length && (r = reader.read(buffer, read, buffer.length - read)) > 0) {
          read += r;
        }
        return text(new String(buffer, 0, Math.max(read, 0)));
      } catch (IOException e) {
        throw new SQLException("cannot read a text value", e);
      }
    }
    if (v instanceof Blob blob) {
      int keep = (int) Math.min(blob.length(), maxCellChars + 1L);
      try (InputStream in = blob.getBinaryStream()) {
        return binary(in.readNBytes(keep), blob.length());
      } catch (IOException e) {
        throw new SQLException("cannot read a binary value", e);
      }
    }
    if (v instanceof Array array) {
      Object elements = array.getArray();
      ArrayNode out = NODES.arrayNode();
      if (elements instanceof Object[] items) {
        for (int k = 0; k < items.length; k++) {
          if (k == MAX_ARRAY_ELEMENTS) {
            cutValues++;
            break;
          }
          out.add(items[k] == null ? NODES.nullNode() : convert(items[k]));
        }
        return out;
      }
      return text(String.valueOf(elements));
    }
    return text(v.toString());
  }

  private JsonNode text(String s) {
    return text(s, s.length());
  }

  /** A text of {@code length} characters in all, of which {@code s} are the first. */
  private JsonNode text(String s, long length) {
    if (s.length() <= maxCellChars && length <= maxCellChars) {
      return NODES.stringNode(s);
    }
    cutValues++;
    int end = Math.min(maxCellChars, s.length());
    if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1))) {
      end--;
    }
    return NODES.stringNode(s.substring(0, end) + "...[cut: " + Math.max(0, length - end)
        + " more characters]");
  }

  private JsonNode binary(byte[] bytes, long length) {
    int keep = (int) Math.min(bytes.length, maxCellChars * 3L / 4);
    String encoded = Base64.getEncoder().encodeToString(
        keep == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, keep));
    if (keep < length) {
      cutValues++;
      return NODES.stringNode(encoded + "...[cut: " + (length - keep) + " more bytes]");
    }
    return NODES.stringNode(encoded);
  }
}
