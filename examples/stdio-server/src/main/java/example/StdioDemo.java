package example;

import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.stdio.StdioServerTransport;

/**
 * A server a desktop MCP client starts as a process and talks to over stdin and stdout (see
 * {@code desktop-config.json}). Nothing but protocol may go to stdout: logs go to stderr,
 * which is where slf4j-simple writes.
 */
public final class StdioDemo {

  /** The tools: plain methods. */
  public static final class Notes {
    private final java.util.List<String> notes = new java.util.concurrent.CopyOnWriteArrayList<>();

    @McpTool(description = "Keeps a note for later")
    public String remember(String note) {
      notes.add(note);
      return "noted (" + notes.size() + ")";
    }

    @McpTool(description = "Lists the notes kept so far", readOnly = true)
    public String notes() {
      return String.join("\n", notes);
    }
  }

  public static McpServer server() {
    return McpServer.builder().name("notes").version("1.0.0").toolsFrom(new Notes()).build();
  }

  public static void main(String[] args) {
    // serves until the client closes stdin, then returns
    StdioServerTransport.create(server()).serve(System.in, System.out);
  }
}
