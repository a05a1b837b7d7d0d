package dev.keel.mcp.core.protocol;

import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import java.math.BigDecimal;
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
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The stateless era's request headers that mirror the body, for both sides: {@code Mcp-Method},
 * {@code Mcp-Name} (the method's target, see {@link McpMethod#targetParam()}) and, for a tool
 * whose input schema marks arguments with {@code x-mcp-header}, one {@code Mcp-Param-*} header
 * per argument. A value that is not header-safe travels as {@code =?base64?...?=}. The client
 * writes them with {@link #headers}; the server checks them with {@link #mismatch}, so that
 * nothing routing on headers is told one thing while the server executes another.
 */
public final class HeaderMirror {

  /** How deep the {@code x-mcp-header} walk follows nested {@code properties}. */
  public static final int MAX_SCHEMA_DEPTH = 32;

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]*={0,2}");
  private static final String SENTINEL_START = "=?base64?";
  private static final String SENTINEL_END = "?=";

  private HeaderMirror() {}

  /** Encodes a value for a header: itself when header-safe, otherwise Base64 in the sentinel. */
  public static String encode(String value) {
    boolean safe = !value.isEmpty() && value.equals(value.strip())
        && !(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END));
    for (int i = 0; safe && i < value.length(); i++) {
      char c = value.charAt(i);
      safe = (c >= 0x21 && c <= 0x7e) || c == ' ' || c == '\t';
    }
    if (safe) {
      return value;
    }
    return SENTINEL_START + Base64.getEncoder().encodeToString(
        value.getBytes(StandardCharsets.UTF_8)) + SENTINEL_END;
  }

  /**
   * Decodes a header value: the sentinel is strict Base64 of UTF-8 text, anything else is
   * literal. Empty when the encoding is malformed or a plain value holds control characters.
   */
  public static Optional<String> decode(String value) {
    if (value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END)
        && value.length() >= SENTINEL_START.length() + SENTINEL_END.length()) {
      String b64 = value.substring(SENTINEL_START.length(),
          value.length() - SENTINEL_END.length());
      if (b64.length() % 4 != 0 || !BASE64.matcher(b64).matches()) {
        return Optional.empty();
      }
      try {
        return Optional.of(new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return Optional.empty();
      }
    }
    return Optional.of(value);
  }

  /**
   * Returns the arguments a tool's input schema marks with {@code x-mcp-header}: header name
   * (without the {@code Mcp-Param-} prefix) to the property path, outermost first.
   */
  public static Map<String, List<String>> annotatedArguments(ObjectNode inputSchema) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    collect(inputSchema, new ArrayList<>(), out, 0);
    return out;
  }

  private static void collect(JsonNode schema, List<String> path, Map<String, List<String>> out,
      int depth) {
    JsonNode properties = schema.get("properties");
    if (properties == null || !properties.isObject() || depth > MAX_SCHEMA_DEPTH) {
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
   * Returns the mirrored headers of a stateless request, by header name.
   *
   * @param toolInputSchema for {@code tools/call}, the tool's input schema (its annotations
   *     assumed valid), or null
   */
  public static Map<String, String> headers(JsonRpcRequest request, ObjectNode toolInputSchema) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Mcp-Method", request.method());
    JsonNode target = target(request);
    if (target != null && target.isString()) {
      headers.put("Mcp-Name", encode(target.stringValue()));
    }
    if (toolInputSchema != null && McpMethod.of(request.method()).orElse(null)
        == McpMethod.TOOLS_CALL) {
      JsonNode arguments = request.params() == null ? null : request.params().get("arguments");
      for (Map.Entry<String, List<String>> a : annotatedArguments(toolInputSchema).entrySet()) {
        JsonNode value = at(arguments, a.getValue());
        if (value == null || value.isNull()) {
          continue;
        }
        String text = value.isBoolean() ? Boolean.toString(value.booleanValue())
            : value.isIntegralNumber() ? value.bigIntegerValue().toString()
            : value.isString() ? value.stringValue() : null;
        if (text != null) {
          headers.put("Mcp-Param-" + a.getKey(), encode(text));
        }
      }
    }
    return headers;
  }

  /**
   * Returns why a stateless request's mirrored headers disagree with its body, or empty when
   * they agree. Header names are looked up case-insensitively by {@code header}.
   *
   * @param toolInputSchema for {@code tools/call} of a known tool, its input schema, or null
   */
  public static Optional<String> mismatch(UnaryOperator<String> header, JsonRpcRequest request,
      ObjectNode toolInputSchema) {
    String method = trimmed(header.apply("Mcp-Method"));
    if (method == null) {
      return Optional.of("Missing Mcp-Method header");
    }
    if (!method.equals(request.method())) {
      return Optional.of("Mcp-Method header does not match the request body");
    }
    McpMethod known = McpMethod.of(request.method()).orElse(null);
    JsonNode target = target(request);
    if (target != null || (known != null && known.targetParam() != null)) {
      String name = trimmed(header.apply("Mcp-Name"));
      if (name == null) {
        return Optional.of("Missing Mcp-Name header");
      }
      Optional<String> decoded = decode(name);
      if (decoded.isEmpty()) {
        return Optional.of("Mcp-Name header is not valid");
      }
      if (target == null || !target.isString() || !decoded.get().equals(target.stringValue())) {
        return Optional.of("Mcp-Name header does not match the request body");
      }
    }
    if (toolInputSchema != null && known == McpMethod.TOOLS_CALL) {
      JsonNode arguments = request.params() == null ? null : request.params().get("arguments");
      for (Map.Entry<String, List<String>> a : annotatedArguments(toolInputSchema).entrySet()) {
        String name = "Mcp-Param-" + a.getKey();
        String value = header.apply(name);
        JsonNode body = at(arguments, a.getValue());
        if (body == null || body.isNull()) {
          if (value != null) {
            return Optional.of(name + " was sent without a value in the body");
          }
          continue;
        }
        if (value == null) {
          return Optional.of("Missing " + name + " header");
        }
        Optional<String> decoded = decode(value.strip());
        if (decoded.isEmpty()) {
          return Optional.of(name + " header is not valid");
        }
        if (!matches(decoded.get(), body)) {
          return Optional.of(name + " header does not match the request body");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the body's value of the method's target parameter (see
   * {@link McpMethod#targetParam()}), or null when it has none or the request does not set it.
   */
  public static JsonNode target(JsonRpcRequest request) {
    McpMethod known = McpMethod.of(request.method()).orElse(null);
    if (known == null || known.targetParam() == null || request.params() == null) {
      return null;
    }
    JsonNode value = request.params().get(known.targetParam());
    return value == null || value.isNull() ? null : value;
  }

  /**
   * Returns why a tool's {@code x-mcp-header} annotations are invalid, or empty when they are
   * fine (or absent). Invalid: empty or not a header token, duplicated case-insensitively, on a
   * non-primitive or {@code number} property, or anywhere but a chain of {@code properties}.
   */
  public static Optional<String> invalidAnnotation(ObjectNode inputSchema) {
    List<String> problems = new ArrayList<>();
    walk(inputSchema, true, problems, new HashSet<>(), 0);
    return problems.isEmpty() ? Optional.empty() : Optional.of(problems.get(0));
  }

  private static void walk(JsonNode node, boolean reachable, List<String> problems,
      Set<String> seen, int depth) {
    if (depth > 2 * MAX_SCHEMA_DEPTH || !node.isContainer()) {
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

  private static JsonNode at(JsonNode node, List<String> path) {
    JsonNode value = node;
    for (String step : path) {
      value = value == null ? null : value.get(step);
    }
    return value;
  }

  private static boolean matches(String header, JsonNode value) {
    if (value.isString()) {
      return header.equals(value.stringValue());
    }
    if (value.isBoolean()) {
      return header.equals(value.booleanValue() ? "true" : "false");
    }
    if (value.isNumber()) {
      try {
        return new BigDecimal(header).compareTo(value.decimalValue()) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false;
  }

  private static String trimmed(String header) {
    return header == null ? null : header.strip();
  }
}
