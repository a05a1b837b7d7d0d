package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.GetPromptRequest;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.ListPromptsResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.server.internal.registry.PromptEntry;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code prompts/list} and {@code prompts/get}, which checks required arguments. */
final class PromptMethods {

  private static final Logger LOG = LoggerFactory.getLogger(PromptMethods.class);

  private PromptMethods() {}

  static JsonNode list(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    List<Prompt> all = core.registry().prompts().stream()
        .filter(p -> ctx.principal().grants(p.requiredScopes())).map(PromptEntry::prompt)
        .toList();
    Cursors.Page<Prompt> page = Cursors.page(all, Cursors.cursorOf(params), core.pageSize());
    return core.json().toTree(new ListPromptsResult(page.items(), page.nextCursor(), null));
  }

  static JsonNode get(RealRequestContext ctx, ObjectNode params) throws Exception {
    ServerCore core = ctx.core();
    GetPromptRequest request = core.json().fromTree(params, GetPromptRequest.class);
    PromptEntry entry = core.registry().prompt(request.name()).orElseThrow(
        () -> McpException.invalidParams("Unknown prompt: " + Text.safe(request.name())));
    List<PromptArgument> declared = entry.prompt().arguments();
    if (declared != null) {
      for (PromptArgument argument : declared) {
        if (Boolean.TRUE.equals(argument.required())
            && !request.arguments().containsKey(argument.name())) {
          throw McpException.invalidParams("Missing required argument: " + argument.name());
        }
      }
    }
    GetPromptResult result = entry.handler().get(ctx, request.arguments());
    if (result == null) {
      throw HandlerFailures.internal(HandlerFailures.log(LOG, "prompt "
          + Text.safe(request.name()) + " returned null", null));
    }
    return core.json().toTree(result);
  }
}
