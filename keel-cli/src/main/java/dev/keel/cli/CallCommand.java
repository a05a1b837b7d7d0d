package dev.keel.cli;

import dev.keel.cli.output.ResultPrinter;
import dev.keel.cli.output.StatusLine;
import dev.keel.cli.output.Terminals;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.schema.TextContent;
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
        "  keel call --yes URL insert_row '{\"table\":\"notes\",\"values\":{\"body\":\"hi\"}}'",
        "  keel call -v URL test_tool_with_logging",
        "  keel call --sampling-command 'llm -m mini' URL test_sampling '{\"prompt\":\"hi\"}'",
        "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
        "", "When the server asks: --no declines; --yes accepts (with --answer values, the",
        "defaults, yes for an approval); else --answer fills forms; else keel asks at the",
        "terminal when stdin is one (forms field by field, URLs to open); otherwise it",
        "cannot answer and tells the server so. Sampling goes to --sampling-command (the",
        "request's JSON on its stdin, the reply on its stdout) or, at a terminal, to you.",
        "Roots are the --root directories, or for a --stdio server the current directory.",
        "", "Log messages of the server show on stderr: warnings and up; -v info, -vv debug.",
        "While a call runs, stderr shows a spinner (a terminal only) or its progress.",
        "Rows print as a table, images and audio are saved to files (--save-dir).",
        "", "Exit status: 0 done, 1 the tool reported an error (or its arguments were",
        "refused), 2 usage, 3 the server could not be reached, 4 the server answered with",
        "an error or broke the protocol, 5 timed out (cancelled at the server),",
        "130 cancelled (Ctrl-C)."})
final class CallCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Mixin
  SaveOptions save;

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
    ResultPrinter printer = save.printer();
    StatusLine status = new StatusLine(System.err, Terminals.stderr(), tool);
    return ClientRun.run(client, target,
        b -> host.install(b, target.url() == null, System.err, status), System.err, mcp -> {
      CallToolResult result;
      host.requestLogLevel(mcp, System.err);
      try {
        if (task) {
          result = TaskWatch.run(mcp, tool, arguments, client.timeout(), System.err);
        } else {
          status.start();
          try {
            result = mcp.callTool(tool, arguments,
                CallOptions.defaults().withTimeout(client.timeout()).withProgress(status));
          } finally {
            status.finish();
          }
        }
      } catch (McpException e) {
        hintIfItNeededAnswers(e.code(), e.getMessage());
        throw e;
      }
      if (client.json) {
        printer.json(result);
      } else {
        printer.callResult(result);
      }
      if (result.failed()) {
        hintIfItNeededAnswers(0, result.content().stream()
            .filter(c -> c instanceof TextContent).map(c -> ((TextContent) c).text())
            .reduce("", String::concat));
        System.err.println("keel: the tool reported an error");
        return ClientRun.TOOL_ERROR;
      }
      return ClientRun.OK;
    });
  }

  /**
   * A server that needs to ask the person (an approval, a form) fails when keel could not
   * declare elicitation because nobody can answer; the failure alone does not say what to do.
   */
  private void hintIfItNeededAnswers(int code, String message) {
    String said = message == null ? "" : message.toLowerCase(java.util.Locale.ROOT);
    if (!host.elicitationDeclared && said.contains("elicitation")) {
      System.err.println("keel: the server needs to ask you something (elicitation), and "
          + "keel asks only when stdin is a terminal: run it at a terminal or pass --yes/--no "
          + "(or --answer NAME=VALUE)");
    } else if (code == MISSING_CAPABILITY && said.contains("sampling")) {
      System.err.println("keel: the server needs a model's reply (sampling), which keel "
          + "gives only at a terminal (you write it) or through --sampling-command CMD");
    }
  }

  /** The modern era's error for a request that needs a capability the client lacks. */
  private static final int MISSING_CAPABILITY = -32021;

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
