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
    return server(maxSessions, probe, b -> { });
  }

  /** {@link #server(int, CancelProbe)} with {@code adjust} applied to the builder first. */
  static McpServer server(int maxSessions, CancelProbe probe,
      java.util.function.Consumer<McpServer.Builder> adjust) {
    McpServer.Builder b = McpServer.builder().name("keel-bench").version("1");
    adjust.accept(b);
    b
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

  /**
   * Keel as one node of a cluster over the Redis at {@code uri}: sessions listed there, tasks
   * and the key ring kept there, the bus on it; closing the result closes them too.
   */
  static Clustered clustered(String uri) {
    dev.keel.mcp.redis.RedisCluster cluster = dev.keel.mcp.redis.RedisCluster.builder(uri)
        .build();
    dev.keel.mcp.redis.RedisRequestStateKeys keys =
        dev.keel.mcp.redis.RedisRequestStateKeys.builder(uri).build();
    return new Clustered(cluster, keys, b -> b.cluster(cluster).requestStateKeys(keys)
        .taskStore(dev.keel.mcp.redis.RedisTaskStore.builder(cluster).build()));
  }

  /** What {@link #clustered} opened, and how it changes a builder. */
  record Clustered(dev.keel.mcp.redis.RedisCluster cluster,
      dev.keel.mcp.redis.RedisRequestStateKeys keys,
      java.util.function.Consumer<McpServer.Builder> adjust) implements AutoCloseable {
    @Override
    public void close() {
      cluster.close();
      keys.close();
    }
  }

  /** Starts Keel's own embedded launcher, as a user of {@code McpHttpServer} would. */
  static McpHttpServer start(McpServer server, int port, int maxSessions) {
    // Every idle session's listening stream holds a connection, and past maxConnections (10,000
    // by default) new connections wait in the accept queue: the idle-capacity run opens 10,000
    // streams and then calls on new connections, so the limit is raised with the sessions.
    // echo is non-blocking and returns in microseconds, so an application serving it would take
    // the selector lane; -Dkeel.bench.selectorLane=false measures the servlet path instead.
    return McpHttpServer.builder(server).port(port).maxConnections(maxSessions + 1_000)
        .selectorLane(Boolean.parseBoolean(System.getProperty("keel.bench.selectorLane", "true")))
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
