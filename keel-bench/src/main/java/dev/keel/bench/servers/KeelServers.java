package dev.keel.bench.servers;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.McpServlet;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;

/** Keel serving the benchmark's tools, the way an application would. */
final class KeelServers {

  private KeelServers() {}

  /**
   * Returns a server with {@code echo} and {@code sleep}, and the probe's tools when
   * {@code probe} is not null. The session caps are raised to {@code maxSessions} because every
   * benchmark connection runs as the one local principal, and the idle-capacity scenario opens
   * more sessions than the per-principal default (1,000) allows.
   */
  static McpServer server(int maxSessions, CancelProbe probe) {
    McpServer.Builder b = McpServer.builder().name("keel-bench").version("1")
        .maxSessions(maxSessions)
        .maxSessionsPerPrincipal(maxSessions)
        .tool(Tool.builder(BenchTools.ECHO).description("Returns its text")
                .inputSchema(BenchTools.ECHO_SCHEMA).build(),
            // echo only copies its argument, so it is declared non-blocking and runs on the
            // container thread; -Dkeel.bench.blockingEcho=true measures it handed off instead.
            Boolean.getBoolean("keel.bench.blockingEcho") ? ToolOptions.defaults()
                : ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> CallToolResult.text(args.get("text").asString()))
        .tool(Tool.builder(BenchTools.SLEEP).description("Blocks for ms milliseconds")
                .inputSchema(BenchTools.SLEEP_SCHEMA).build(),
            (ctx, args) -> {
              long ms = args.get("ms").asLong();
              Thread.sleep(ms);
              return CallToolResult.text("slept " + ms + " ms");
            });
    if (probe != null) {
      probe.register(b);
    }
    return b.build();
  }

  /** Starts Keel's own embedded launcher, as a user of {@code McpHttpServer} would. */
  static McpHttpServer start(McpServer server, int port, int maxSessions) {
    return McpHttpServer.builder(server).port(port)
        .servlet(s -> s.maxListeningStreams(maxSessions))
        .start();
  }

  /**
   * Starts the same servlet behind {@link CancelProbeServlet}, on the same Jetty setup, so the
   * arrival of a {@code notifications/cancelled} is stamped before Keel reads a byte of it.
   */
  static org.eclipse.jetty.server.Server startProbed(McpServer server, CancelProbe probe,
      int port) throws Exception {
    McpServlet mcp = McpServlet.builder(server).path("/mcp").build();
    return Jetty.start(new CancelProbeServlet(mcp, probe), "/*", port);
  }
}
