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
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Prints results for people: text as text; structured rows as an aligned {@link Table}; other
 * structured content as indented JSON when there is no text; binary content (images, audio,
 * blobs) as a one-line summary and, given {@link MediaFiles}, saved to a fresh file whose path
 * is printed. Everything from the server goes through {@link TerminalText}.
 */
public final class ResultPrinter {

  private final PrintStream out;
  private final MediaFiles media;
  private final int maxWidth;

  /** Prints on {@code out}, summarising binary content without saving it. */
  public ResultPrinter(PrintStream out) {
    this(out, null, 0);
  }

  /**
   * Prints on {@code out}.
   *
   * @param media where binary content is saved, or null to only summarise it
   * @param maxWidth the widest a table line may be (the terminal's width), or 0 for no limit
   */
  public ResultPrinter(PrintStream out, MediaFiles media, int maxWidth) {
    this.out = out;
    this.media = media;
    this.maxWidth = maxWidth;
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

  /**
   * Prints a tool's result. When its structured content holds rows, they print as a table, and
   * text blocks that only repeat them as JSON are left out.
   */
  public void callResult(CallToolResult result) {
    Table table = Table.of(result.structuredContent());
    String same = table == null ? null : McpJson.standard().write(result.structuredContent());
    boolean printedText = false;
    for (Content c : result.content()) {
      // the JSON copy of the rows (bare, or wrapped in markers such as <untrusted-data>)
      if (table != null && c instanceof TextContent t && t.text() != null
          && (isJson(t.text()) || t.text().contains(same))) {
        continue;
      }
      printedText |= content(c);
    }
    if (table != null) {
      table.print(out, Table.MAX_COLUMN, maxWidth);
    } else if (!printedText && result.structuredContent() != null) {
      out.println(TerminalText.safe(pretty(result.structuredContent())));
    }
  }

  private static boolean isJson(String text) {
    String t = text == null ? "" : text.strip();
    if (!t.startsWith("{") && !t.startsWith("[")) {
      return false;
    }
    try {
      McpJson.standard().parse(t);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private boolean content(Content c) {
    if (c instanceof TextContent t) {
      out.println(TerminalText.safe(t.text()));
      return true;
    }
    if (c instanceof ImageContent i) {
      binary("image", i.mimeType(), i.data());
    } else if (c instanceof AudioContent a) {
      binary("audio", a.mimeType(), a.data());
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

  private void binary(String kind, String mimeType, String data) {
    String summary = "[" + kind + " " + TerminalText.firstLine(mimeType, 60) + ", "
        + decodedSize(data) + " bytes]";
    if (media == null) {
      out.println(summary);
      return;
    }
    try {
      out.println(summary + " saved to " + media.save(data, mimeType));
    } catch (IOException | IllegalArgumentException e) {
      out.println(summary + " not saved: " + TerminalText.firstLine(e.toString(), 200));
    }
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
      binary("blob " + TerminalText.firstLine(b.uri(), 200) + ",", b.mimeType(), b.blob());
    }
  }

  /** Prints resources, one line each: URI, name, MIME type and description. */
  public void resources(List<Resource> resources) {
    if (resources.isEmpty()) {
      out.println("(the server offers no resources)");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (Resource r : resources) {
      rows.add(List.of(r.uri(), r.name(), nullToEmpty(r.mimeType()),
          nullToEmpty(r.description())));
    }
    Table.ofCells(List.of("URI", "NAME", "TYPE", "DESCRIPTION"), rows)
        .print(out, Table.MAX_COLUMN * 2, maxWidth);
  }

  /** Prints resource templates, one line each: URI template, name, MIME type, description. */
  public void templates(List<ResourceTemplate> templates) {
    if (templates.isEmpty()) {
      out.println("(the server offers no resource templates)");
      return;
    }
    List<List<String>> rows = new ArrayList<>();
    for (ResourceTemplate t : templates) {
      rows.add(List.of(t.uriTemplate(), t.name(), nullToEmpty(t.mimeType()),
          nullToEmpty(t.description())));
    }
    Table.ofCells(List.of("URI TEMPLATE", "NAME", "TYPE", "DESCRIPTION"), rows)
        .print(out, Table.MAX_COLUMN * 2, maxWidth);
  }

  /** Prints prompts, one block each: name and description, then the arguments. */
  public void prompts(List<Prompt> prompts) {
    if (prompts.isEmpty()) {
      out.println("(the server offers no prompts)");
      return;
    }
    int width = prompts.stream().mapToInt(p -> TerminalText.firstLine(p.name(), 60).length())
        .max().orElse(0);
    for (Prompt p : prompts) {
      out.println(String.format("%-" + width + "s  %s", TerminalText.firstLine(p.name(), 60),
          TerminalText.firstLine(p.description(), 100)).stripTrailing());
      if (p.arguments() != null && !p.arguments().isEmpty()) {
        List<String> parts = new ArrayList<>();
        for (PromptArgument a : p.arguments()) {
          parts.add(TerminalText.firstLine(a.name(), 40)
              + (Boolean.TRUE.equals(a.required()) ? " (required)" : "")
              + (a.description() == null || a.description().isBlank() ? ""
                  : " - " + TerminalText.firstLine(a.description(), 80)));
        }
        out.println(" ".repeat(width + 2) + "args: " + String.join(", ", parts));
      }
    }
  }

  /** Prints a prompt's messages, each under its role. */
  public void promptResult(GetPromptResult result) {
    if (result.description() != null && !result.description().isBlank()) {
      out.println("# " + TerminalText.firstLine(result.description(), 200));
    }
    if (result.messages().isEmpty()) {
      out.println("(the prompt has no messages)");
    }
    for (PromptMessage m : result.messages()) {
      out.println("[" + m.role().name().toLowerCase(java.util.Locale.ROOT) + "]");
      content(m.content());
    }
  }

  private static String nullToEmpty(String text) {
    return text == null ? "" : text;
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
