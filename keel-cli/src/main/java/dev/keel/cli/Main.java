package dev.keel.cli;

import java.util.List;
import picocli.CommandLine;

/** The {@code keel} command's entry point. */
public final class Main {

  /**
   * The subcommands' names, in the order {@code keel --help} lists them. Picocli reads every
   * option of every command it is given by reflection, loading the types they name (the
   * client's, the agent's), and on one core that was about half a second of every start,
   * {@code keel --version} included: a command line that names its subcommand gets only that
   * one.
   */
  private static final List<String> SUBCOMMANDS = List.of("agent", "fixtures", "tools", "call",
      "read", "resources", "templates", "prompts", "prompt", "login", "conformance-client");

  /** A switch, not constructor references: linking a reference loads its class. */
  private static Object subcommand(String name) {
    return switch (name) {
      case "agent" -> new AgentCommand();
      case "fixtures" -> new FixturesCommand();
      case "tools" -> new ToolsCommand();
      case "call" -> new CallCommand();
      case "read" -> new ReadCommand();
      case "resources" -> new ListCommand.Resources();
      case "templates" -> new ListCommand.Templates();
      case "prompts" -> new ListCommand.Prompts();
      case "prompt" -> new PromptCommand();
      case "login" -> new LoginCommand();
      case "conformance-client" -> new ConformanceClientCommand();
      default -> throw new IllegalArgumentException("no subcommand " + name);
    };
  }

  private Main() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.exit(newCommandLine(args.length > 0 ? args[0] : null).execute(args));
  }

  /** Returns the command line with every subcommand (also used by tests). */
  public static CommandLine newCommandLine() {
    return newCommandLine(null);
  }

  /**
   * Returns the command line with only the subcommand {@code first} names, or with all of them
   * when it names none (no arguments, an option such as {@code --help}, a misspelt name, which
   * picocli then answers with the names it knows).
   */
  static CommandLine newCommandLine(String first) {
    CommandLine line = new CommandLine(new KeelCommand());
    boolean named = first != null && SUBCOMMANDS.contains(first);
    for (String name : SUBCOMMANDS) {
      if (!named || name.equals(first)) {
        line.addSubcommand(name, subcommand(name));
      }
    }
    return line;
  }
}
