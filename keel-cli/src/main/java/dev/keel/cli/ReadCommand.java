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
        "  keel read --save-dir /tmp http://127.0.0.1:9000/mcp test://static-binary",
        "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
        "", "Text prints as text; binary contents are saved to new files (keel-RANDOM.EXT,",
        "in --save-dir or the current directory) and their paths printed."})
final class ReadCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Mixin
  SaveOptions save;

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
    ResultPrinter printer = save.printer();
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
