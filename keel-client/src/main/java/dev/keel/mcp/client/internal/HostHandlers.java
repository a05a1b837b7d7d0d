package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.RootsProvider;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.ListRootsResult;
import dev.keel.mcp.core.schema.Root;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The host's answers to what a server asks: elicitation, sampling, roots and ping, whether the
 * question came as a request (legacy era) or as an input request of a stateless result.
 *
 * <p>The capabilities the client declares are derived from the handlers present, so a server
 * is never promised what no handler can give. A handler's failure reaches the server as a
 * constant text: the host's exception messages stay local.
 */
public final class HostHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(HostHandlers.class);
  static final String HANDLER_FAILED = "The client could not complete the request";

  private final McpJson json;
  private final ElicitationHandler elicitation;
  private final SamplingHandler sampling;
  private final RootsProvider roots;

  /** Creates the answers from the handlers registered (any may be null). */
  public HostHandlers(McpJson json, ElicitationHandler elicitation, SamplingHandler sampling,
      RootsProvider roots) {
    this.json = json;
    this.elicitation = elicitation;
    this.sampling = sampling;
    this.roots = roots;
  }

  /** Returns the capabilities the handlers support. */
  public ClientCapabilities capabilities() {
    ObjectNode elicit = null;
    if (elicitation != null) {
      elicit = McpJson.object();
      elicit.putObject("form");
      if (elicitation.supportsUrlMode()) {
        elicit.putObject("url");
      }
    }
    ObjectNode rootsCapability = roots == null ? null : McpJson.object().put("listChanged", false);
    return new ClientCapabilities(rootsCapability, sampling == null ? null : McpJson.object(),
        elicit, null, null, null);
  }

  /**
   * Answers one question.
   *
   * @throws McpException with a text fit for the server when it cannot be answered
   */
  public JsonNode answer(String method, ObjectNode params) {
    ObjectNode p = params == null ? McpJson.object() : params;
    return switch (method) {
      case "ping" -> McpJson.object();
      case "elicitation/create" -> elicit(p);
      case "sampling/createMessage" -> sample(p);
      case "roots/list" -> listRoots();
      default -> throw McpException.methodNotFound(method);
    };
  }

  private JsonNode elicit(ObjectNode params) {
    if (elicitation == null) {
      throw McpException.methodNotFound("elicitation/create");
    }
    ElicitRequest request = parse(params, ElicitRequest.class, "elicitation/create");
    if (request.isUrlMode() && !elicitation.supportsUrlMode()) {
      throw McpException.invalidParams("Invalid params: this client does not support "
          + "URL-mode elicitation");
    }
    ElicitResult result = run(() -> elicitation.elicit(request), "elicitation");
    ObjectNode answer = json.toObject(result);
    if (result.accepted() && !request.isUrlMode() && request.requestedSchema() != null) {
      ObjectNode content = answer.get("content") instanceof ObjectNode c ? c
          : answer.putObject("content");
      applyDefaults(request.requestedSchema(), content);
    }
    return answer;
  }

  /**
   * SEP-1034: a field the user left out that the schema gives a default for is sent with the
   * default, so the server sees the value the form showed.
   */
  static void applyDefaults(ObjectNode requestedSchema, ObjectNode content) {
    JsonNode properties = requestedSchema.get("properties");
    if (!(properties instanceof ObjectNode props)) {
      return;
    }
    for (Map.Entry<String, JsonNode> field : props.properties()) {
      JsonNode fallback = field.getValue().get("default");
      if (fallback != null && !fallback.isNull() && !content.has(field.getKey())) {
        content.set(field.getKey(), fallback.deepCopy());
      }
    }
  }

  private JsonNode sample(ObjectNode params) {
    if (sampling == null) {
      throw McpException.methodNotFound("sampling/createMessage");
    }
    CreateMessageRequest request = parse(params, CreateMessageRequest.class,
        "sampling/createMessage");
    CreateMessageResult result = run(() -> sampling.sample(request), "sampling");
    return json.toObject(result);
  }

  private JsonNode listRoots() {
    if (roots == null) {
      throw McpException.methodNotFound("roots/list");
    }
    List<Root> list = run(roots::roots, "roots");
    return json.toObject(new ListRootsResult(list, null));
  }

  private <T> T parse(ObjectNode params, Class<T> type, String method) {
    try {
      return json.fromTree(params, type);
    } catch (RuntimeException e) {
      throw McpException.invalidParams("Invalid params for " + method);
    }
  }

  private interface Work<T> {
    T get() throws Exception;
  }

  private static <T> T run(Work<T> work, String what) {
    try {
      T value = work.get();
      if (value == null) {
        throw new IllegalStateException("the " + what + " handler returned null");
      }
      return value;
    } catch (McpException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new McpException(ErrorCodes.INTERNAL_ERROR, HANDLER_FAILED);
    } catch (Exception e) {
      LOG.warn("the {} handler failed: {}", what, Text.safe(String.valueOf(e.getMessage())));
      throw new McpException(ErrorCodes.INTERNAL_ERROR, HANDLER_FAILED);
    }
  }
}
