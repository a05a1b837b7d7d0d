package dev.keel.bench.servers;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Server;

/**
 * The official MCP Java SDK serving the benchmark's tools through its two Streamable HTTP
 * servlet transports and its 2026-07-28 server, with the SDK's defaults (sync handlers, its own thread pool), on the same
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

  /**
   * The SDK's server of the 2026-07-28 revision (its {@code modern} package): every request
   * stands alone, sync tools, its servlet transport and its defaults.
   */
  static Running modern(int port) throws Exception {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    McpSyncTool echo = McpSyncTool.of(modernTool(json, BenchTools.ECHO, BenchTools.ECHO_SCHEMA,
        "Returns its text"), (context, request) -> McpSyncResponse.result(
            modernText(String.valueOf(request.arguments().get("text")))));
    McpSyncTool sleep = McpSyncTool.of(modernTool(json, BenchTools.SLEEP,
        BenchTools.SLEEP_SCHEMA, "Blocks for ms milliseconds"), (context, request) -> {
          long ms = ((Number) request.arguments().get("ms")).longValue();
          BenchTools.sleep(ms);
          return McpSyncResponse.result(modernText("slept " + ms + " ms"));
        });
    Map<String, McpSyncTool> tools = Map.of(BenchTools.ECHO, echo, BenchTools.SLEEP, sleep);
    McpSyncToolRepository repository = new McpSyncToolRepository() {
      @Override
      public ToolsPage list(McpRequestContext context, String cursor) {
        return ToolsPage.of(List.of(echo.definition(), sleep.definition()));
      }

      @Override
      public McpSyncTool find(McpRequestContext context, String name) {
        return tools.get(name);
      }
    };
    io.modelcontextprotocol.modern.server.McpServer server =
        io.modelcontextprotocol.modern.server.McpServer.builder()
            .serverInfo(io.modelcontextprotocol.modern.McpSchema.Implementation
                .builder("sdk-bench", "1").build())
            .feature(ToolsFeature.ofSync(repository))
            .build();
    HttpServletMcpTransport transport = HttpServletMcpTransport.builder(server)
        .endpoint("/mcp").build();
    Server jetty = Jetty.start(transport, "/mcp", port);
    return new Running(jetty, server::closeGracefully);
  }

  private static io.modelcontextprotocol.modern.McpSchema.Tool modernTool(McpJsonMapper json,
      String name, String schema, String description) {
    return io.modelcontextprotocol.modern.McpSchema.Tool.builder(name, json, schema)
        .description(description).build();
  }

  private static io.modelcontextprotocol.modern.McpSchema.CallToolResult modernText(String text) {
    return io.modelcontextprotocol.modern.McpSchema.CallToolResult.builder()
        .addContent(io.modelcontextprotocol.modern.McpSchema.TextContent.builder(text).build())
        .build();
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
