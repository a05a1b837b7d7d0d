package dev.keel.cli;

import dev.keel.cli.fixtures.FixtureServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code keel fixtures}: the conformance fixture server. Its output line
 * {@code listening on http://HOST:PORT/mcp} and its tools are contracts other checks rely on.
 */
@Command(name = "fixtures", mixinStandardHelpOptions = true,
    description = "Run the MCP conformance fixture server (HTTP, or stdio with --stdio).")
final class FixturesCommand implements Callable<Integer> {

  @Mixin
  ServerOptions server;

  @Override
  public Integer call() throws Exception {
    return server.serve(FixtureServer.create(server.shared()));
  }
}
