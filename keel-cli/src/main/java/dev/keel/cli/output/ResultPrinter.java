package dev.keel.cli.output;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.AudioContent;
import dev.keel.mcp.core.schema.BlobResourceContents;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.EmbeddedResource;
import dev.keel.mcp.core.schema.ImageContent;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceLink;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Prints results for people: text as text, binary content as a one-line summary, structured
 * content as indented JSON when there is no text. Everything from the server goes through
 * {@link TerminalText}.
 */
public final class ResultPrinter {

  private final PrintStream out;

  /** Prints on {@code out}. */
  public ResultPrinter(PrintStream out) {
    this.out = out;
  }

  /** Prints the tools, one block each: name and description, then the arguments. */
  public void tools(List<Tool> tools) {
    if (tools.isEmpty()) {
      out.println("(the server offers no tools)");
      return;
    }
    int width = tools.stream().mapToInt(t -> t.name().length()).max().orElse(0);
    for (Tool tool : tools) {
      out.println(String.format("%-" + width + "s  %s", tool.name(),
          TerminalText.firstLine(tool.description(), 100)));
      String args = arguments(tool);
      if (!args.isEmpty()) {
        out.println(" ".repeat(width + 2) + "args: " + args);
      }
    }
  }

  private static String arguments(Tool tool) {
    JsonNode properties = tool.inputSchema().get("properties");
    if (properties == null || !properties.isObject()) {
      return "";
    }
    JsonNode requiredNode = tool.inputSchema().get("required");
    List<String> required = new ArrayList<>();
    if (requiredNode != null && requiredNode.isArray()) {
      requiredNode.forEach(n -> required.add(n.asString()));
    }
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      JsonNode type = p.getValue().get("type");
      String typeName = type == null ? "any" : type.isString() ? type.stringValue()
          : type.toString();
      parts.add(TerminalText.firstLine(p.getKey(), 40) + ": " + TerminalText.firstLine(typeName,
          30) + (required.contains(p.getKey()) ? " (required)" : ""));
    }
    return String.join(", ", parts);
  }

  /** Prints a tool's result. */
  public void callResult(CallToolResult result) {
    boolean printedText = false;
    for (Content c : result.content()) {
      printedText |= content(c);
    }
    if (!printedText && result.structuredContent() != null) {
      out.println(TerminalText.safe(pretty(result.structuredContent())));
    }
  }

  private boolean content(Content c) {
    if (c instanceof TextContent t) {
      out.println(TerminalText.safe(t.text()));
      return true;
    }
    if (c instanceof ImageContent i) {
      out.println("[image " + TerminalText.firstLine(i.mimeType(), 60) + ", "
          + decodedSize(i.data()) + " bytes]");
    } else if (c instanceof AudioContent a) {
      out.println("[audio " + TerminalText.firstLine(a.mimeType(), 60) + ", "
          + decodedSize(a.data()) + " bytes]");
    } else if (c instanceof ResourceLink l) {
      out.println("[resource link " + TerminalText.firstLine(l.uri(), 200) + "]");
    } else if (c instanceof EmbeddedResource r) {
      resource(r.resource());
      return r.resource() instanceof TextResourceContents;
    } else {
      out.println("[" + c.getClass().getSimpleName() + "]");
    }
    return false;
  }

  /** Prints a resource's contents. */
  public void readResult(ReadResourceResult result) {
    if (result.contents().isEmpty()) {
      out.println("(the resource is empty)");
    }
    for (ResourceContents contents : result.contents()) {
      resource(contents);
    }
  }

  private void resource(ResourceContents contents) {
    if (contents instanceof TextResourceContents t) {
      out.println(TerminalText.safe(t.text()));
    } else if (contents instanceof BlobResourceContents b) {
      out.println("[blob " + TerminalText.firstLine(b.uri(), 200) + ", "
          + TerminalText.firstLine(b.mimeType(), 60) + ", " + decodedSize(b.blob())
          + " bytes]");
    }
  }

  /** Prints any value as indented JSON (for {@code --json}). */
  public void json(Object value) {
    out.println(pretty(McpJson.standard().toTree(value)));
  }

  private static String pretty(JsonNode node) {
    return McpJson.standard().mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node);
  }

  private static long decodedSize(String base64) {
    if (base64 == null) {
      return 0;
    }
    int padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
    return Math.max(0, (long) base64.length() * 3 / 4 - padding);
  }

}
