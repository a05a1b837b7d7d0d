package dev.keel.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top-level {@code keel} command: it only lists its subcommands. */
@Command(name = "keel", mixinStandardHelpOptions = true, version = "keel 0.1.0",
    description = "Keel: MCP servers and clients for Java, both protocol eras.",
    subcommands = {AgentCommand.class, FixturesCommand.class, ToolsCommand.class,
        CallCommand.class, ReadCommand.class, ListCommand.Resources.class,
        ListCommand.Templates.class, ListCommand.Prompts.class, PromptCommand.class,
        LoginCommand.class,
        ConformanceClientCommand.class})
final class KeelCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
