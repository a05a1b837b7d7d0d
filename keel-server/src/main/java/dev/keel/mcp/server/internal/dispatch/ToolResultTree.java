package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.TextContent;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@code tools/call} result as the tree the wire sends. Data binding turns a record into a
 * tree by writing it to a token buffer and reading that back, polymorphic content type ids
 * included; for the result nearly every tool returns (text blocks, perhaps structured content)
 * that round trip was most of what a small tool's call cost Keel. That shape is built here by
 * hand, with the same members in the same order; any other shape (images, resources,
 * annotations) still goes through data binding, so new record fields cannot be lost here.
 *
 * <p>What the handler handed over is copied, not shared: the stateless era adds members to a
 * result's {@code _meta}, and a handler may keep and change the nodes it returned.
 */
final class ToolResultTree {

  private ToolResultTree() {}

  /** Returns {@code result} as a tree, equal to what {@code json.toTree(result)} returns. */
  static ObjectNode of(McpJson json, CallToolResult result) {
    if (!plain(result)) {
      return json.toObject(result);
    }
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    ObjectNode out = nodes.objectNode();
    ArrayNode content = out.putArray("content");
    for (Content block : result.content()) {
      TextContent text = (TextContent) block;
      ObjectNode node = content.addObject();
      node.put("type", "text");
      node.put("text", text.text());
      if (text.meta() != null) {
        node.set("_meta", text.meta().deepCopy());
      }
    }
    if (result.structuredContent() != null) {
      out.set("structuredContent", result.structuredContent().deepCopy());
    }
    if (result.isError() != null) {
      out.put("isError", result.isError().booleanValue());
    }
    if (result.meta() != null) {
      out.set("_meta", result.meta().deepCopy());
    }
    return out;
  }

  private static boolean plain(CallToolResult result) {
    for (Content block : result.content()) {
      if (!(block instanceof TextContent text) || text.annotations() != null) {
        return false;
      }
    }
    // a structured value other than an object or an array (a JSON null, a number) keeps data
    // binding's treatment of it
    JsonNode structured = result.structuredContent();
    return structured == null || structured.isContainer();
  }
}
