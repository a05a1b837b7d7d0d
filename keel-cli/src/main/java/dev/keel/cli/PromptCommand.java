package dev.keel.cli;

import dev.keel.cli.output.ResultPrinter;
import dev.keel.mcp.core.schema.GetPromptResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code keel prompt TARGET NAME [ARG=VALUE...]}: gets one prompt and prints its messages. The
 * arguments are {@code NAME=VALUE} words because MCP prompt arguments are strings: no JSON
 * quoting is needed, and a value may hold {@code =} (only the first one splits).
 */
@Command(name = "prompt", mixinStandardHelpOptions = true,
    description = "Get a prompt of an MCP server, with its arguments, and print its messages.",
    footer = {"", "Examples:",
        "  keel prompt http://127.0.0.1:9000/mcp test_simple_prompt",
        "  keel prompt http://127.0.0.1:9000/mcp test_prompt_with_arguments arg1=a arg2=b",
        "  keel prompt --json http://127.0.0.1:8765/mcp explore_table table=orders",
        "  keel prompt --stdio test_simple_prompt -- ./keel fixtures --stdio",
        "(8765 is ./keel agent; 9000 is ./keel fixtures --port 9000.)",
        "", "Each message prints under its role ([user], [assistant]); images in it are",
        "saved to files (--save-dir). See the prompts and their arguments with",
        "keel prompts TARGET."})
final class PromptCommand implements Callable<Integer> {

  @Mixin
  ClientOptions client;

  @Mixin
  SaveOptions save;

  @Parameters(paramLabel = "TARGET NAME [ARG=VALUE...]", arity = "0..*",
      description = "The server's URL (with --stdio: nothing, the command follows --), the "
          + "prompt's name, and its arguments as NAME=VALUE words.")
  List<String> words;

  @Override
  public Integer call() {
    ClientOptions.Target target = client.target(words);
    List<String> rest = target.words();
    if (rest.isEmpty()) {
      throw new ParameterException(client.spec.commandLine(), "missing NAME (the prompt's)");
    }
    String name = rest.get(0);
    Map<String, String> arguments = new LinkedHashMap<>();
    for (String word : rest.subList(1, rest.size())) {
      int eq = word.indexOf('=');
      if (eq <= 0) {
        throw new ParameterException(client.spec.commandLine(),
            "a prompt argument must look like NAME=VALUE: " + word);
      }
      arguments.put(word.substring(0, eq), word.substring(eq + 1));
    }
    ResultPrinter printer = save.printer();
    return ClientRun.run(client, target, System.err, mcp -> {
      GetPromptResult result = mcp.getPrompt(name, arguments);
      if (client.json) {
        printer.json(result);
      } else {
        printer.promptResult(result);
      }
      return ClientRun.OK;
    });
  }
}
