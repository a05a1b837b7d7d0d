package dev.keel.bench.servers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import org.eclipse.jetty.server.Server;

/**
 * The official MCP Java SDK serving the benchmark's tools through its two Streamable HTTP
 * servlet transports, with the SDK's defaults (sync handlers, its own thread pool), on the same
 * Jetty as Keel. This is how its documentation shows a blocking tool being served.
 */
final class SdkServers {

  /**
   * The SDK's own opt-out of its thread pool, the counterpart of Keel's non-blocking tools: off
   * by default (the SDK's default, and measured no faster on this benchmark); by hand with
   * {@code -Dkeel.bench.sdkImmediate=true}.
   */
  private static final boolean IMMEDIATE = Boolean.getBoolean("keel.bench.sdkImmediate");

  private SdkServers() {}

  /** The session transport: {@code initialize} creates a session, POSTs answer SSE. */
  static Running session(int port) throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder().mcpEndpoint("/mcp").build();
    McpJsonMapper json = McpJsonDefaults.getMapper();
    McpSyncServer server = McpServer.sync(transport)
        .immediateExecution(IMMEDIATE)
        .serverInfo("sdk-bench", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .toolCall(echoTool(json), (exchange, request) -> echo(request))
        .toolCall(sleepTool(json), (exchange, request) -> sleep(request))
        .build();
    Server jetty = Jetty.start(transport, "/mcp", port);
    return new Running(jetty, server::close);
  }

  /** The stateless transport: every POST stands alone and is answered with JSON. */
  static Running stateless(int port) throws Exception {
    HttpServletStatelessServerTransport transport =
        HttpServletStatelessServerTransport.builder().messageEndpoint("/mcp").build();
    McpJsonMapper json = McpJsonDefaults.getMapper();
    McpStatelessSyncServer server = McpServer.sync(transport)
        .immediateExecution(IMMEDIATE)
        .serverInfo("sdk-bench", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
        .toolCall(echoTool(json), (context, request) -> echo(request))
        .toolCall(sleepTool(json), (context, request) -> sleep(request))
        .build();
    Server jetty = Jetty.start(transport, "/mcp", port);
    return new Running(jetty, server::close);
  }

  private static McpSchema.Tool echoTool(McpJsonMapper json) {
    return McpSchema.Tool.builder(BenchTools.ECHO, json, BenchTools.ECHO_SCHEMA)
        .description("Returns its text").build();
  }

  private static McpSchema.Tool sleepTool(McpJsonMapper json) {
    return McpSchema.Tool.builder(BenchTools.SLEEP, json, BenchTools.SLEEP_SCHEMA)
        .description("Blocks for ms milliseconds").build();
  }

  private static CallToolResult echo(CallToolRequest request) {
    Map<String, Object> args = request.arguments();
    return CallToolResult.builder().addTextContent(String.valueOf(args.get("text"))).build();
  }

  private static CallToolResult sleep(CallToolRequest request) {
    long ms = ((Number) request.arguments().get("ms")).longValue();
    BenchTools.sleep(ms);
    return CallToolResult.builder().addTextContent("slept " + ms + " ms").build();
  }

  /** A started SDK server: its Jetty and how to close the SDK server object. */
  record Running(Server jetty, Runnable closeServer) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      jetty.stop();
      closeServer.run();
    }
  }
}
