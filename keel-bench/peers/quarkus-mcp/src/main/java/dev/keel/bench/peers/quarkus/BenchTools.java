package dev.keel.bench.peers.quarkus;

import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;

/**
 * The benchmark's two tools as a Quarkus MCP user writes them: {@code echo} gives its text back,
 * {@code sleep} blocks {@code ms} milliseconds. Plain methods, so Quarkus runs them on its worker
 * threads, its default for a method that does not return a reactive type.
 */
public class BenchTools {

  /** Returns the text it was given. */
  @Tool(description = "Echoes the text back")
  public String echo(@ToolArg(description = "The text to echo") String text) {
    return text;
  }

  /** Blocks for {@code ms} milliseconds. */
  @Tool(description = "Sleeps for ms milliseconds")
  public String sleep(@ToolArg(description = "How long, in milliseconds") int ms)
      throws InterruptedException {
    Thread.sleep(ms);
    return "slept " + ms + " ms";
  }
}
