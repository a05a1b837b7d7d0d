package dev.keel.mcp.client.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The request headers of the stateless era that mirror the body: value encoding (plain when
 * header-safe, else the {@code =?base64?…?=} sentinel) and the {@code x-mcp-header} arguments of
 * a tool, which a client must mirror into {@code Mcp-Param-*} and whose annotations it must
 * check (a tool with an invalid one is left out of the client's view).
 */
public final class HeaderValues {

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");

  private HeaderValues() {}

  /** Encodes a value for a header: itself when header-safe, otherwise Base64 in the sentinel. */
  public static String encode(String value) {
    boolean safe = !value.isEmpty() && value.equals(value.strip())
        && !(value.startsWith("=?base64?") && value.endsWith("?="));
    for (int i = 0; safe && i < value.length(); i++) {
      char c = value.charAt(i);
      safe = (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t';
    }
    if (safe) {
      return value;
    }
    return "=?base64?" + Base64.getEncoder().encodeToString(
        value.getBytes(StandardCharsets.UTF_8)) + "?=";
  }

  /**
   * Returns the {@code Mcp-Param-*} headers for a call's arguments, by header name.
   *
   * @param inputSchema the tool's input schema (its annotations assumed valid)
   */
  public static Map<String, String> paramHeaders(ObjectNode inputSchema, JsonNode arguments) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> annotated : annotations(inputSchema).entrySet()) {
      JsonNode value = arguments;
      for (String step : annotated.getValue()) {
        value = value == null ? null : value.get(step);
      }
      if (value == null || value.isNull()) {
        continue;
      }
      String text = value.isBoolean() ? Boolean.toString(value.booleanValue())
          : value.isIntegralNumber() ? value.bigIntegerValue().toString()
          : value.isString() ? value.stringValue() : null;
      if (text != null) {
        headers.put("Mcp-Param-" + annotated.getKey(), encode(text));
      }
    }
    return headers;
  }

  /** Returns the {@code x-mcp-header} names of a schema with their property paths. */
  static Map<String, List<String>> annotations(ObjectNode schema) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    collect(schema, new ArrayList<>(), out, 0);
    return out;
  }

  private static void collect(JsonNode schema, List<String> path, Map<String, List<String>> out,
      int depth) {
    JsonNode properties = schema.get("properties");
    if (properties == null || !properties.isObject() || depth > 32) {
      return;
    }
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      List<String> here = new ArrayList<>(path);
      here.add(p.getKey());
      JsonNode header = p.getValue().get("x-mcp-header");
      if (header != null && header.isString()) {
        out.put(header.stringValue(), here);
      }
      collect(p.getValue(), here, out, depth + 1);
    }
  }

  /**
   * Returns why a tool's {@code x-mcp-header} annotations are invalid, or empty when they are
   * fine (or absent). Invalid: empty or not a header token, duplicated case-insensitively, on a
   * non-primitive or {@code number} property, or anywhere but a chain of {@code properties}.
   */
  public static Optional<String> invalidAnnotation(ObjectNode inputSchema) {
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    walk(inputSchema, true, problems, seen, 0);
    return problems.isEmpty() ? Optional.empty() : Optional.of(problems.get(0));
  }

  private static void walk(JsonNode node, boolean reachable, List<String> problems,
      Set<String> seen, int depth) {
    if (depth > 64 || !node.isContainer()) {
      return;
    }
    if (node.isArray()) {
      node.forEach(child -> walk(child, false, problems, seen, depth + 1));
      return;
    }
    JsonNode header = node.get("x-mcp-header");
    if (header != null) {
      checkAnnotation(node, header, reachable, problems, seen);
    }
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (e.getKey().equals("properties") && e.getValue().isObject()) {
        for (Map.Entry<String, JsonNode> p : e.getValue().properties()) {
          walk(p.getValue(), reachable, problems, seen, depth + 2);
        }
      } else if (!e.getKey().equals("x-mcp-header")) {
        // items, composition, conditionals, $defs, $ref targets: not statically reachable
        walk(e.getValue(), false, problems, seen, depth + 1);
      }
    }
  }

  private static void checkAnnotation(JsonNode property, JsonNode header, boolean reachable,
      List<String> problems, Set<String> seen) {
    if (!header.isString() || !TOKEN.matcher(header.stringValue()).matches()) {
      problems.add("x-mcp-header is not a valid header name");
      return;
    }
    if (!reachable) {
      problems.add("x-mcp-header " + header.stringValue() + " is not reachable through properties");
      return;
    }
    if (!seen.add(header.stringValue().toLowerCase(Locale.ROOT))) {
      problems.add("x-mcp-header " + header.stringValue() + " is used twice");
      return;
    }
    JsonNode type = property.get("type");
    String t = type == null || !type.isString() ? "" : type.stringValue();
    if (!t.equals("string") && !t.equals("integer") && !t.equals("boolean")) {
      problems.add("x-mcp-header " + header.stringValue() + " is on a property of type '" + t
          + "', not string, integer or boolean");
    }
  }
}
