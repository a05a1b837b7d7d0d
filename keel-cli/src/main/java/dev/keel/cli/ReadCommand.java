package dev.keel.cli;

import dev.keel.cli.output.ResultPrinter;
import dev.keel.mcp.core.schema.ReadResourceResult;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code keel read TARGET URI}: reads one resource and prints it. */
@Command(name = "read", mixinStandardHelpOptions = true,
    description = "Read a resource of an MCP server and print it.",
    footer = {"", "Examples:", "  keel read http://127.0.0.1:8765/mcp db://tables",
        "  keel read http://127.0.0.1:9000/mcp test://static-text",
        "  keel read --stdio test://static-text -- ./keel fixtures --stdio",
        "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)"})
final class ReadCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Parameters(paramLabel = "TARGET URI", arity = "0..*",
      description = "The server's URL (with --stdio: nothing, the command follows --) and the "
          + "resource's URI.")
  List<String> words;

  @Override
  public Integer call() {
    ClientOptions.Target target = client.target(words);
    if (target.words().size() != 1) {
      throw new ParameterException(client.spec.commandLine(),
          target.words().isEmpty() ? "missing URI" : "too many arguments");
    }
    String uri = target.words().get(0);
    ResultPrinter printer = new ResultPrinter(System.out);
    return ClientRun.run(client, target, System.err, mcp -> {
      ReadResourceResult result = mcp.readResource(uri);
      if (client.json) {
        printer.json(result);
      } else {
        printer.readResult(result);
      }
      return ClientRun.OK;
    });
  }
}
