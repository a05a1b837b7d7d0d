package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.internal.registry.FeatureKind;
import dev.keel.mcp.server.internal.subscriptions.SubscriptionRegistry;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.internal.subscriptions.SubscriptionRegistry.Subscription;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code subscriptions/listen}: acknowledges the filter it honours first, then keeps the
 * request's stream open for the change notifications asked for. The handler returns at once;
 * no thread waits on an idle subscription.
 */
final class ListenMethod {

  /** The most resources one subscription may watch. */
  static final int MAX_RESOURCES = 100;

  private ListenMethod() {}

  static JsonNode listen(RealRequestContext ctx, ObjectNode params) {
    JsonNode wanted = params.get("notifications");
    if (!(wanted instanceof ObjectNode filter)) {
      throw McpException.invalidParams("Invalid params: notifications must be an object");
    }
    ServerCore core = ctx.core();
    Set<FeatureKind> kinds = EnumSet.noneOf(FeatureKind.class);
    ObjectNode honoured = McpJson.object();
    honour(filter, "toolsListChanged", FeatureKind.TOOLS, kinds, honoured);
    honour(filter, "promptsListChanged", FeatureKind.PROMPTS, kinds, honoured);
    honour(filter, "resourcesListChanged", FeatureKind.RESOURCES, kinds, honoured);
    Set<String> uris = new LinkedHashSet<>();
    JsonNode resources = filter.get("resourceSubscriptions");
    if (resources != null && resources.isArray()) {
      for (JsonNode uri : resources) {
        if (uri.isString() && uris.size() < MAX_RESOURCES
            && ResourceMethods.exists(core, uri.stringValue())) {
          uris.add(uri.stringValue());
        }
      }
      uris.forEach(honoured.putArray("resourceSubscriptions")::add);
    }
    Set<String> taskIds = new LinkedHashSet<>();
    JsonNode tasks = filter.get("taskIds");
    if (tasks != null && tasks.isArray() && !tasks.isEmpty()) {
      if (!ctx.clientCapabilities().hasExtension(TaskMethods.EXTENSION)) {
        throw McpErrors.missingExtension(TaskMethods.EXTENSION);
      }
      for (JsonNode id : tasks) {
        // Only the caller's own tasks: another's id is silently not honoured, like an unknown one.
        if (id.isString() && taskIds.size() < MAX_RESOURCES && core.tasks()
            .find(id.stringValue(), ctx.principal().fingerprint(), null)
            .filter(TaskDialect.STATELESS::owns).isPresent()) {
          taskIds.add(id.stringValue());
        }
      }
      taskIds.forEach(honoured.putArray("taskIds")::add);
    }
    JsonNode idJson = ctx.requestId().isNumber()
        ? JsonNodeFactory.instance.numberNode((Long) ctx.requestId().value())
        : JsonNodeFactory.instance.stringNode((String) ctx.requestId().value());
    RequestStream stream = ctx.requestStream();
    if (stream == null) {
      throw McpException.invalidRequest("Invalid Request: this transport cannot hold a "
          + "subscription stream");
    }
    Subscription subscription = new Subscription(ctx.requestId(), idJson,
        ctx.principal().fingerprint(), stream, ctx.scope(), kinds, Set.copyOf(uris),
        Set.copyOf(taskIds));
    SubscriptionRegistry registry = core.subscriptions();
    if (!registry.add(subscription)) {
      throw new McpException(ErrorCodes.SERVER_ERROR, "Too many subscriptions");
    }
    if (!stream.hold(() -> registry.remove(subscription))) {
      registry.remove(subscription);
      throw McpException.invalidRequest("Invalid Request: this transport cannot hold a "
          + "subscription stream");
    }
    ObjectNode ack = SubscriptionRegistry.tagged(subscription);
    ack.set("notifications", honoured);
    stream.send(new JsonRpcNotification("notifications/subscriptions/acknowledged", ack));
    return MethodHandler.HELD;
  }

  private static void honour(ObjectNode filter, String field, FeatureKind kind,
      Set<FeatureKind> kinds, ObjectNode honoured) {
    JsonNode value = filter.get(field);
    if (value != null && value.isBoolean() && value.booleanValue()) {
      kinds.add(kind);
      honoured.put(field, true);
    }
  }
}
