package dev.keel.agent.internal.tools;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.TextContent;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Marks a result as data from the database. Anyone who could write a row could have written
 * "ignore your instructions" into it; the model must be able to tell the agent's words from the
 * database's. So every successful result carries {@value #META_KEY} in its {@code _meta} and in
 * its text block's, and the text block the model reads wraps the JSON in
 * {@code <untrusted-data>} ... {@code </untrusted-data>}, with any closing tag inside the data
 * defused. (The MCP specification suggests the text block repeat the structured content as
 * plain JSON; the wrapper is the deliberate exception, and {@code structuredContent} is the
 * plain data for programs.)
 */
final class Untrusted {

  /** The marker's key in {@code _meta}. */
  static final String META_KEY = "dev.keel.agent/untrusted";

  static final String OPEN = "<untrusted-data>\n";
  static final String CLOSE = "\n</untrusted-data>";

  private Untrusted() {}

  static CallToolResult mark(CallToolResult result) {
    ObjectNode meta = result.meta() == null ? JsonNodeFactory.instance.objectNode()
        : result.meta().deepCopy();
    meta.put(META_KEY, true);
    List<Content> content = new ArrayList<>();
    for (Content c : result.content()) {
      if (c instanceof TextContent text) {
        ObjectNode own = text.meta() == null ? JsonNodeFactory.instance.objectNode()
            : text.meta().deepCopy();
        own.put(META_KEY, true);
        content.add(new TextContent(wrap(text.text()), text.annotations(), own));
      } else {
        content.add(c);
      }
    }
    return new CallToolResult(content, result.structuredContent(), result.isError(), meta);
  }

  /** Wraps data so that nothing inside can close the wrapper. */
  static String wrap(String data) {
    return OPEN + data.replace("</untrusted-data", "<\\/untrusted-data") + CLOSE;
  }
}
