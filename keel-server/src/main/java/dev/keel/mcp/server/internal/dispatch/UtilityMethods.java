package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.CompleteRequest;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.CompletionHandler;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code ping}, {@code logging/setLevel} and {@code completion/complete}. */
final class UtilityMethods {

  private UtilityMethods() {}

  static JsonNode ping(RealRequestContext ctx, ObjectNode params) {
    return JsonNodeFactory.instance.objectNode();
  }

  /** {@code server/discover}: versions, capabilities and instructions, for any era's probe. */
  static JsonNode discover(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    dev.keel.mcp.core.ProtocolVersion.MODERN.forEach(result.putArray("supportedVersions")::add);
    // The stateless era has no tasks capability: tasks are the extension there.
    ObjectNode capabilities = core.json().toObject(core.capabilities());
    capabilities.remove("tasks");
    capabilities.putObject("extensions").putObject(TaskMethods.EXTENSION);
    result.set("capabilities", capabilities);
    if (core.instructions() != null) {
      result.put("instructions", core.instructions());
    }
    return result;
  }

  static JsonNode setLevel(RealRequestContext ctx, ObjectNode params) {
    String level = Params.requiredString(params, "level");
    LoggingLevel parsed;
    try {
      parsed = LoggingLevel.fromWire(level);
    } catch (IllegalArgumentException e) {
      throw McpException.invalidParams("Invalid log level");
    }
    if (ctx.session() == null) {
      throw new McpException(ErrorCodes.INVALID_REQUEST, "logging/setLevel needs a session");
    }
    ctx.session().logLevel(parsed);
    return JsonNodeFactory.instance.objectNode();
  }

  static JsonNode complete(RealRequestContext ctx, ObjectNode params) throws Exception {
    ServerCore core = ctx.core();
    CompleteRequest request = core.json().fromTree(params, CompleteRequest.class);
    CompletionReference ref = request.ref();
    if (ref instanceof CompletionReference.PromptRef p) {
      if (core.registry().prompt(p.name()).isEmpty()) {
        throw McpException.invalidParams("Unknown prompt: " + Text.safe(p.name()));
      }
    } else if (ref instanceof CompletionReference.ResourceTemplateRef r) {
      if (core.registry().template(r.uri()).isEmpty()) {
        throw McpException.invalidParams("Unknown resource template: " + Text.safe(r.uri()));
      }
    }
    Optional<CompletionHandler> handler = core.registry().completion(ref);
    Completion completion = handler.isPresent() ? handler.get().complete(ctx, request) : null;
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    result.set("completion", core.json().toTree(
        completion == null ? Completion.empty() : completion));
    return result;
  }
}
