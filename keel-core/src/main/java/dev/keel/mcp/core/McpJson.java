package dev.keel.mcp.core;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.keel.mcp.core.jsonrpc.JsonLimits;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keel's own JSON mapper: the read limits of a {@link JsonLimits}, nulls omitted on write,
 * unknown properties ignored on read (forward compatibility), trailing tokens rejected.
 *
 * <p>Keel never touches Jackson's global defaults; a server or client with its own limits owns
 * an instance, and those with the default limits share {@link #standard()}: an immutable
 * instance that enforces the default limits on peer input as any other does, and converts
 * records where no server or client is at hand (building schemas in code, tests).
 */
public final class McpJson {

  private static final McpJson STANDARD = new McpJson(JsonLimits.defaults());

  private final JsonLimits limits;
  private final JsonMapper mapper;
  private final ObjectReader peerReader;

  private McpJson(JsonLimits limits) {
    this.limits = limits;
    StreamReadConstraints constraints = StreamReadConstraints.builder()
        .maxNestingDepth(limits.maxDepth())
        .maxDocumentLength(limits.maxBytes())
        .maxStringLength(limits.maxStringLength())
        .maxNameLength(Math.min(limits.maxStringLength(), 64 * 1024))
        .maxNumberLength(1000)
        .build();
    JsonFactory factory = JsonFactory.builder().streamReadConstraints(constraints).build();
    this.mapper = JsonMapper.builder(factory)
        .changeDefaultPropertyInclusion(
            v -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                JsonInclude.Include.NON_NULL))
        .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .build();
    // What a peer wrote is read with finite numbers only (FiniteNumbers says why); Keel's own
    // values keep the mapper's defaults.
    this.peerReader = mapper.reader().with(new FiniteNumbers());
  }

  /**
   * Returns a mapper that enforces the given limits on everything it reads: the shared
   * {@link #standard()} instance for the default limits (a mapper is immutable and thread-safe,
   * and building a second one cost a server's start some twenty milliseconds and megabytes of
   * short-lived garbage), a new one for any other.
   */
  public static McpJson create(JsonLimits limits) {
    return limits.equals(STANDARD.limits) ? STANDARD : new McpJson(limits);
  }

  /** Returns the shared instance with the default limits. */
  public static McpJson standard() {
    return STANDARD;
  }

  /**
   * Reads a peer's JSON text as a tree under this mapper's limits, refusing numbers beyond a
   * double's range.
   *
   * @throws tools.jackson.core.JacksonException when it is not JSON or breaks a limit
   */
  public JsonNode readPeerTree(byte[] bytes) {
    return peerReader.readTree(bytes);
  }

  /** Returns the limits this mapper enforces. */
  public JsonLimits limits() {
    return limits;
  }

  /** Returns the Jackson mapper, for code that needs streaming or tree access. */
  public JsonMapper mapper() {
    return mapper;
  }

  /** Returns a new empty object node. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /**
   * Parses trusted JSON text (a schema written in code, a config file) into a tree.
   *
   * @throws IllegalArgumentException naming the position when the text is not valid JSON
   */
  public JsonNode parse(String json) {
    try {
      return mapper.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("invalid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Parses trusted JSON text that must be an object. */
  public ObjectNode parseObject(String json) {
    JsonNode node = parse(json);
    if (!(node instanceof ObjectNode object)) {
      throw new IllegalArgumentException("expected a JSON object, got " + node.getNodeType());
    }
    return object;
  }

  /** Converts a record (or any bean) to a tree. */
  public JsonNode toTree(Object value) {
    return mapper.valueToTree(value);
  }

  /** Converts a record to an object tree. */
  public ObjectNode toObject(Object value) {
    JsonNode node = toTree(value);
    if (!(node instanceof ObjectNode object)) {
      throw new IllegalArgumentException("value does not serialize to a JSON object: "
          + value.getClass().getName());
    }
    return object;
  }

  /** Writes a value as compact JSON text. */
  public String write(Object value) {
    return mapper.writeValueAsString(value);
  }

  /**
   * Converts peer-supplied params into a record.
   *
   * @throws McpException {@code -32602} naming the offending field (never quoting the input)
   */
  public <T> T fromTree(JsonNode node, Class<T> type) {
    try {
      return mapper.treeToValue(node == null ? object() : node, type);
    } catch (DatabindException e) {
      throw McpException.invalidParams("Invalid params" + describePath(e));
    } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
      throw McpException.invalidParams("Invalid params");
    }
  }

  private static String describePath(DatabindException e) {
    StringBuilder path = new StringBuilder();
    for (JacksonException.Reference ref : e.getPath()) {
      if (ref.getPropertyName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(ref.getPropertyName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.length() == 0 ? "" : ": " + Text.safe(path.toString());
  }
}
