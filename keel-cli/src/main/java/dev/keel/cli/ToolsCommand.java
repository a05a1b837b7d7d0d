package dev.keel.cli;

import dev.keel.cli.output.ResultPrinter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;

/** {@code keel tools TARGET}: lists a server's tools. */
@Command(name = "tools", mixinStandardHelpOptions = true,
    description = "List the tools of an MCP server.",
    footer = {"", "Examples:", "  keel tools http://127.0.0.1:8765/mcp",
        "  keel tools --stdio -- ./keel fixtures --stdio"})
final class ToolsCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Parameters(paramLabel = "TARGET", arity = "0..*",
      description = "The server's URL (or, with --stdio, its command after --).")
  List<String> words;

  @Override
  public Integer call() {
    ClientOptions.Target target = client.target(words);
    if (!target.words().isEmpty()) {
      throw new ParameterException(client.spec.commandLine(),
          "unexpected arguments: " + String.join(" ", target.words()));
    }
    ResultPrinter printer = new ResultPrinter(System.out);
    return ClientRun.run(client, target, System.err, mcp -> {
      if (client.json) {
        printer.json(java.util.Map.of("tools", mcp.listTools()));
      } else {
        printer.tools(mcp.listTools());
      }
      return ClientRun.OK;
    });
  }
}
