package dev.keel.cli;

import dev.keel.cli.output.ResultPrinter;
import dev.keel.mcp.client.McpClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * What {@code keel resources}, {@code keel templates} and {@code keel prompts} share: a TARGET
 * and nothing else, every page of the list (the client follows the cursors), printed for people
 * or, with {@code --json}, as {@code {"KEY": [...]}}.
 */
abstract class ListCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Parameters(paramLabel = "TARGET", arity = "0..*",
      description = "The server's URL (or, with --stdio, its command after --).")
  List<String> words;

  /** The key of the list in {@code --json} output, as in the MCP result. */
  abstract String key();

  /** Fetches every page. */
  abstract List<?> list(McpClient mcp);

  /** Prints for people. */
  abstract void print(ResultPrinter printer, McpClient mcp);

  @Override
  public Integer call() {
    ClientOptions.Target target = client.target(words);
    if (!target.words().isEmpty()) {
      throw new ParameterException(client.spec.commandLine(),
          "unexpected arguments: " + String.join(" ", target.words()));
    }
    ResultPrinter printer = client.printer();
    return ClientRun.run(client, target, System.err, mcp -> {
      if (client.json) {
        printer.json(Map.of(key(), list(mcp)));
      } else {
        print(printer, mcp);
      }
      return ClientRun.OK;
    });
  }

  /** {@code keel resources TARGET}. */
  @Command(name = "resources", mixinStandardHelpOptions = true,
      description = "List the resources of an MCP server (every page).",
      footer = {"", "Examples:", "  keel resources http://127.0.0.1:8765/mcp",
          "  keel resources --json http://127.0.0.1:9000/mcp",
          "  keel resources --stdio -- ./keel fixtures --stdio",
          "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
          "Read one with: keel read TARGET URI"})
  static final class Resources extends ListCommand {
    @Override
    String key() {
      return "resources";
    }

    @Override
    List<?> list(McpClient mcp) {
      return mcp.listResources();
    }

    @Override
    void print(ResultPrinter printer, McpClient mcp) {
      printer.resources(mcp.listResources());
    }
  }

  /** {@code keel templates TARGET}. */
  @Command(name = "templates", mixinStandardHelpOptions = true,
      description = "List the resource templates of an MCP server (every page).",
      footer = {"", "Examples:", "  keel templates http://127.0.0.1:8765/mcp",
          "  keel templates --json http://127.0.0.1:9000/mcp",
          "  keel templates --stdio -- ./keel fixtures --stdio",
          "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
          "Fill a template's {variables} and read it with: keel read TARGET URI"})
  static final class Templates extends ListCommand {
    @Override
    String key() {
      return "resourceTemplates";
    }

    @Override
    List<?> list(McpClient mcp) {
      return mcp.listResourceTemplates();
    }

    @Override
    void print(ResultPrinter printer, McpClient mcp) {
      printer.templates(mcp.listResourceTemplates());
    }
  }

  /** {@code keel prompts TARGET}. */
  @Command(name = "prompts", mixinStandardHelpOptions = true,
      description = "List the prompts of an MCP server with their arguments (every page).",
      footer = {"", "Examples:", "  keel prompts http://127.0.0.1:8765/mcp",
          "  keel prompts --json http://127.0.0.1:9000/mcp",
          "  keel prompts --stdio -- ./keel fixtures --stdio",
          "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
          "Get one with: keel prompt TARGET NAME [ARG=VALUE...]"})
  static final class Prompts extends ListCommand {
    @Override
    String key() {
      return "prompts";
    }

    @Override
    List<?> list(McpClient mcp) {
      return mcp.listPrompts();
    }

    @Override
    void print(ResultPrinter printer, McpClient mcp) {
      printer.prompts(mcp.listPrompts());
    }
  }
}
