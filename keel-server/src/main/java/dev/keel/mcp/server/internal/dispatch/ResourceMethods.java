package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.schema.ListResourceTemplatesResult;
import dev.keel.mcp.core.schema.ListResourcesResult;
import dev.keel.mcp.core.schema.ReadResourceRequest;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.internal.registry.ResourceEntry;
import dev.keel.mcp.server.internal.registry.TemplateEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code resources/*}: lists, reads through fixed URIs then templates, and subscriptions. */
final class ResourceMethods {

  /** The longest resource URI accepted, in characters. */
  static final int MAX_URI = 8192;

  private ResourceMethods() {}

  static JsonNode list(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    List<Resource> all = core.registry().resources().stream()
        .filter(r -> ctx.principal().grants(r.requiredScopes())).map(ResourceEntry::resource)
        .toList();
    Cursors.Page<Resource> page = Cursors.page(all, Cursors.cursorOf(params), core.pageSize());
    return core.json().toTree(new ListResourcesResult(page.items(), page.nextCursor(), null));
  }

  static JsonNode templates(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    List<ResourceTemplate> all = core.registry().templates().stream()
        .filter(t -> ctx.principal().grants(t.requiredScopes())).map(TemplateEntry::template)
        .toList();
    Cursors.Page<ResourceTemplate> page =
        Cursors.page(all, Cursors.cursorOf(params), core.pageSize());
    return core.json().toTree(
        new ListResourceTemplatesResult(page.items(), page.nextCursor(), null));
  }

  static JsonNode read(RealRequestContext ctx, ObjectNode params) throws Exception {
    ServerCore core = ctx.core();
    String uri = uriOf(ctx, params);
    Optional<ResourceEntry> fixed = core.registry().resource(uri);
    ReadResourceResult result;
    if (fixed.isPresent()) {
      result = fixed.get().handler().read(ctx, uri);
    } else {
      Optional<Match> match = core.registry().firstTemplate(
          t -> t.uriTemplate().match(uri).map(vars -> new Match(t, vars)));
      if (match.isEmpty()) {
        throw McpErrors.resourceNotFound(uri);
      }
      result = match.get().entry().handler().read(ctx, uri, match.get().variables());
    }
    if (result == null || result.contents().isEmpty()) {
      // An empty contents list must not stand for a resource that does not exist.
      throw McpErrors.resourceNotFound(uri);
    }
    return core.json().toTree(result);
  }

  private record Match(TemplateEntry entry, Map<String, String> variables) {}

  static JsonNode subscribe(RealRequestContext ctx, ObjectNode params) {
    String uri = uriOf(ctx, params);
    if (!exists(ctx.core(), uri)) {
      throw McpErrors.resourceNotFound(uri);
    }
    if (ctx.session() == null) {
      throw new McpException(ErrorCodes.INVALID_REQUEST, "Subscriptions need a session");
    }
    if (!ctx.session().subscribe(uri)) {
      throw McpException.invalidParams("Too many subscriptions");
    }
    return JsonNodeFactory.instance.objectNode();
  }

  static JsonNode unsubscribe(RealRequestContext ctx, ObjectNode params) {
    String uri = uriOf(ctx, params);
    if (ctx.session() != null) {
      ctx.session().unsubscribe(uri);
    }
    return JsonNodeFactory.instance.objectNode();
  }

  static boolean exists(ServerCore core, String uri) {
    return core.registry().resource(uri).isPresent()
        || core.registry().firstTemplate(t -> t.uriTemplate().match(uri)).isPresent();
  }

  private static String uriOf(RealRequestContext ctx, ObjectNode params) {
    String uri = ctx.core().json().fromTree(params, ReadResourceRequest.class).uri();
    if (uri.isEmpty() || uri.length() > MAX_URI) {
      throw McpException.invalidParams("Invalid resource URI");
    }
    return uri;
  }
}
