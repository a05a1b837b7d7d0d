package dev.keel.mcp.core.jsonrpc;

import static dev.keel.mcp.core.ErrorCodes.INVALID_REQUEST;
import static dev.keel.mcp.core.ErrorCodes.PARSE_ERROR;

import dev.keel.mcp.core.McpJson;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes single JSON-RPC 2.0 messages under the limits of a {@link McpJson}.
 *
 * <p>Decoding is strict where it matters for safety (one object, {@code "jsonrpc": "2.0"}, ids
 * that are strings or integers, params that are objects) and lenient elsewhere: unknown members
 * are ignored. Error messages never quote the input.
 */
public final class JsonRpcCodec {

  /** At most this many results are frozen; later ones are encoded as any other. */
  static final int MAX_FROZEN = 16;

  private static final byte[] RESPONSE_HEAD =
      "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] RESULT_NAME = ",\"result\":".getBytes(StandardCharsets.UTF_8);

  /** A result encoded once, for every answer that carries that very node. */
  private record Frozen(JsonNode result, byte[] bytes) {}

  private final McpJson json;
  private volatile Frozen[] frozen = new Frozen[0];

  /** Creates a codec reading under the limits of {@code json}. */
  public JsonRpcCodec(McpJson json) {
    this.json = json;
  }

  /** Returns the mapper this codec uses. */
  public McpJson json() {
    return json;
  }

  /**
   * Decodes one message.
   *
   * @throws InvalidMessageException {@code -32700} or {@code -32600}
   */
  public JsonRpcMessage decode(byte[] bytes) {
    if (bytes.length > json.limits().maxBytes()) {
      throw new InvalidMessageException(PARSE_ERROR, "Parse error: message too large", null);
    }
    JsonNode tree;
    try {
      tree = json.readPeerTree(bytes);
    } catch (StreamConstraintsException e) {
      throw new InvalidMessageException(PARSE_ERROR, "Parse error: " + limitName(e), null);
    } catch (JacksonException e) {
      throw new InvalidMessageException(PARSE_ERROR, "Parse error", null);
    }
    return decodeTree(tree);
  }

  /** Decodes one message from text (a stdio line). */
  public JsonRpcMessage decode(String text) {
    return decode(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Decodes an already parsed tree.
   *
   * @throws InvalidMessageException {@code -32600} when the tree is not one JSON-RPC message
   */
  public JsonRpcMessage decodeTree(JsonNode tree) {
    if (tree == null || tree.isMissingNode()) {
      throw new InvalidMessageException(INVALID_REQUEST, "Invalid Request: empty body", null);
    }
    if (tree.isArray()) {
      throw new InvalidMessageException(INVALID_REQUEST,
          "Invalid Request: batches are not supported", null);
    }
    if (!(tree instanceof ObjectNode object)) {
      throw new InvalidMessageException(INVALID_REQUEST,
          "Invalid Request: expected a JSON object", null);
    }
    RequestId id = readId(object);
    JsonNode version = object.get("jsonrpc");
    if (version == null || !version.isString() || !"2.0".equals(version.stringValue())) {
      throw invalid("jsonrpc must be \"2.0\"", id);
    }
    JsonNode method = object.get("method");
    if (method != null) {
      if (!method.isString() || method.stringValue().isEmpty()) {
        throw invalid("method must be a non-empty string", id);
      }
      ObjectNode params = readParams(object, id);
      if (object.has("id")) {
        if (id == null) {
          throw invalid("id must be a string or an integer", null);
        }
        return new JsonRpcRequest(id, method.stringValue(), params);
      }
      return new JsonRpcNotification(method.stringValue(), params);
    }
    return decodeResponse(object, id);
  }

  private JsonRpcMessage decodeResponse(ObjectNode object, RequestId id) {
    boolean hasResult = object.has("result");
    boolean hasError = object.has("error");
    if (hasResult == hasError) {
      throw invalid("a message needs a method, a result or an error", id);
    }
    if (hasResult) {
      if (id == null) {
        throw invalid("a result needs an id", null);
      }
      return new JsonRpcResponse(id, object.get("result"));
    }
    JsonNode error = object.get("error");
    JsonNode code = error.get("code");
    JsonNode message = error.get("message");
    if (!error.isObject() || code == null || !code.canConvertToInt() || !code.isIntegralNumber()
        || message == null || !message.isString()) {
      throw invalid("error must have an integer code and a string message", id);
    }
    return new JsonRpcErrorResponse(id,
        new JsonRpcError(code.intValue(), message.stringValue(), error.get("data")));
  }

  private static RequestId readId(ObjectNode object) {
    return RequestId.fromJson(object.get("id"));
  }

  private static ObjectNode readParams(ObjectNode object, RequestId id) {
    JsonNode params = object.get("params");
    if (params == null || params.isNull()) {
      return null;
    }
    if (!(params instanceof ObjectNode p)) {
      throw invalid("params must be an object", id);
    }
    return p;
  }

  private static InvalidMessageException invalid(String why, RequestId id) {
    return new InvalidMessageException(INVALID_REQUEST, "Invalid Request: " + why, id);
  }

  private static String limitName(StreamConstraintsException e) {
    String message = String.valueOf(e.getOriginalMessage());
    if (message.contains("depth")) {
      return "nesting too deep";
    }
    if (message.contains("String value length") || message.contains("Name length")) {
      return "string too long";
    }
    if (message.contains("Number value length")) {
      return "number too long";
    }
    if (message.contains("Number value out of range")) {
      return "number out of range";
    }
    return "message too large";
  }

  /** Encodes a message as a tree. */
  public ObjectNode toTree(JsonRpcMessage message) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("jsonrpc", "2.0");
    if (message instanceof JsonRpcRequest r) {
      putId(out, r.id());
      out.put("method", r.method());
      if (r.params() != null) {
        out.set("params", r.params());
      }
    } else if (message instanceof JsonRpcNotification n) {
      out.put("method", n.method());
      if (n.params() != null) {
        out.set("params", n.params());
      }
    } else if (message instanceof JsonRpcResponse r) {
      putId(out, r.id());
      out.set("result", r.result());
    } else {
      JsonRpcErrorResponse e = (JsonRpcErrorResponse) message;
      putId(out, e.id());
      ObjectNode error = out.putObject("error");
      error.put("code", e.error().code());
      error.put("message", e.error().message());
      if (e.error().data() != null) {
        error.set("data", e.error().data());
      }
    }
    return out;
  }

  /**
   * Encodes {@code result} now, once, for every later answer that carries this very node (not
   * an equal one): for a result many answers share, such as {@code initialize}'s, which is then
   * never changed. The answers' bytes are the same as without it.
   */
  public synchronized void freeze(JsonNode result) {
    Frozen[] now = frozen;
    if (now.length >= MAX_FROZEN) {
      return;
    }
    for (Frozen f : now) {
      if (f.result() == result) {
        return;
      }
    }
    Frozen[] more = java.util.Arrays.copyOf(now, now.length + 1);
    more[now.length] = new Frozen(result, json.mapper().writeValueAsBytes(result));
    frozen = more;
  }

  /** Encodes a message as compact UTF-8 JSON, with no newline inside or after it. */
  public byte[] encode(JsonRpcMessage message) {
    if (message instanceof JsonRpcResponse r && r.result() != null) {
      for (Frozen f : frozen) {
        if (f.result() == r.result()) {
          return spliced(r.id(), f.bytes());
        }
      }
    }
    return json.mapper().writeValueAsBytes(toTree(message));
  }

  /** An answer around a frozen result's bytes, as {@link #toTree} and the mapper write it. */
  private byte[] spliced(RequestId id, byte[] result) {
    byte[] idBytes = id == null ? "null".getBytes(StandardCharsets.UTF_8)
        : id.value() instanceof Long l ? Long.toString(l).getBytes(StandardCharsets.UTF_8)
        : json.mapper().writeValueAsBytes(id.value());
    byte[] out = new byte[RESPONSE_HEAD.length + idBytes.length + RESULT_NAME.length
        + result.length + 1];
    int at = 0;
    System.arraycopy(RESPONSE_HEAD, 0, out, at, RESPONSE_HEAD.length);
    at += RESPONSE_HEAD.length;
    System.arraycopy(idBytes, 0, out, at, idBytes.length);
    at += idBytes.length;
    System.arraycopy(RESULT_NAME, 0, out, at, RESULT_NAME.length);
    at += RESULT_NAME.length;
    System.arraycopy(result, 0, out, at, result.length);
    out[out.length - 1] = '}';
    return out;
  }

  /** Encodes a message as compact JSON text. */
  public String encodeToString(JsonRpcMessage message) {
    return json.mapper().writeValueAsString(toTree(message));
  }

  private static void putId(ObjectNode out, RequestId id) {
    if (id == null) {
      out.putNull("id");
    } else if (id.value() instanceof Long l) {
      out.put("id", l.longValue());
    } else {
      out.put("id", (String) id.value());
    }
  }
}
