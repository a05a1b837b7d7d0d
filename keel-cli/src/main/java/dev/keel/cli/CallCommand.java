package dev.keel.cli;

import dev.keel.cli.output.ProgressBar;
import dev.keel.cli.output.ResultPrinter;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel call TARGET TOOL [JSON-ARGS]}: calls one tool and prints its result. Progress is
 * drawn on stderr; Ctrl-C cancels the call at the server.
 */
@Command(name = "call", mixinStandardHelpOptions = true,
    description = "Call a tool of an MCP server and print its result.",
    footer = {"", "Examples:",
        "  keel call http://127.0.0.1:8765/mcp count_rows '{\"table\":\"orders\"}'",
        "  keel call http://127.0.0.1:9000/mcp echo '{\"text\":\"hello\"}'",
        "  keel call --stdio echo '{\"text\":\"hello\"}' -- ./keel fixtures --stdio",
        "  keel call --task http://127.0.0.1:9000/mcp slow_compute '{\"seconds\":5}'",
        "  keel call --answer username=ada --answer email=ada@example.com URL signup",
        "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
        "", "When the server asks: elicitation forms are answered from --answer, or at the",
        "terminal when stdin is one; sampling only at a terminal (you write the reply);",
        "roots are the --root directories, or for a --stdio server the current directory.",
        "", "Exit status: 0 done, 1 the tool reported an error (or its arguments were",
        "refused), 2 usage, 3 the server could not be reached, 4 the server answered with",
        "an error or broke the protocol, 5 timed out (cancelled at the server),",
        "130 cancelled (Ctrl-C)."})
final class CallCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Mixin
  HostOptions host;

  @Option(names = "--task",
      description = "Run the call as a task and show its status while it runs.")
  boolean task;

  @Parameters(paramLabel = "TARGET TOOL [JSON-ARGS]", arity = "0..*",
      description = "The server's URL (with --stdio: nothing, the command follows --), the "
          + "tool's name, and its arguments as a JSON object.")
  List<String> words;

  @Override
  public Integer call() {
    ClientOptions.Target target = client.target(words);
    List<String> rest = target.words();
    if (rest.isEmpty() || rest.size() > 2) {
      throw new ParameterException(client.spec.commandLine(),
          rest.isEmpty() ? "missing TOOL" : "too many arguments: JSON-ARGS must be one word "
              + "(quote it)");
    }
    String tool = rest.get(0);
    JsonNode arguments = rest.size() == 2 ? parseArguments(rest.get(1)) : null;
    ResultPrinter printer = new ResultPrinter(System.out);
    ProgressBar bar = new ProgressBar(System.err, System.console() != null);
    return ClientRun.run(client, target,
        b -> host.install(b, target.url() == null, System.err), System.err, mcp -> {
      CallToolResult result;
      if (task) {
        result = TaskWatch.run(mcp, tool, arguments, client.timeout(), System.err);
      } else {
        try {
          result = mcp.callTool(tool, arguments,
              CallOptions.defaults().withTimeout(client.timeout()).withProgress(bar));
        } finally {
          bar.finish();
        }
      }
      if (client.json) {
        printer.json(result);
      } else {
        printer.callResult(result);
      }
      if (result.failed()) {
        System.err.println("keel: the tool reported an error");
        return ClientRun.TOOL_ERROR;
      }
      return ClientRun.OK;
    });
  }

  private JsonNode parseArguments(String text) {
    try {
      JsonNode node = McpJson.standard().parse(text);
      if (!node.isObject()) {
        throw new ParameterException(client.spec.commandLine(),
            "JSON-ARGS must be a JSON object, like '{\"text\":\"hi\"}'");
      }
      return node;
    } catch (RuntimeException e) {
      if (e instanceof ParameterException p) {
        throw p;
      }
      throw new ParameterException(client.spec.commandLine(),
          "JSON-ARGS is not valid JSON: " + text);
    }
  }
}
