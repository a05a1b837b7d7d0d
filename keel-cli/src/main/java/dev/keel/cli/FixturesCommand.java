package dev.keel.cli;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.server.McpServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code keel fixtures}: the conformance fixture server. Its output line
 * {@code listening on http://HOST:PORT/mcp} and its tools are contracts other checks rely on.
 */
@Command(name = "fixtures", mixinStandardHelpOptions = true,
    description = "Run the MCP conformance fixture server (HTTP, or stdio with --stdio).")
final class FixturesCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "0",
      description = "Port to bind; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--stdio", description = "Serve MCP on stdin/stdout instead of HTTP.")
  boolean stdio;

  @Override
  public Integer call() throws Exception {
    McpServer server = FixtureServer.create();
    return stdio ? ServeCommands.stdio(server) : ServeCommands.http(server, host, port);
  }
}
