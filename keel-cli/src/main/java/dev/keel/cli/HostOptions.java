package dev.keel.cli;

import dev.keel.cli.host.AnswerFlags;
import dev.keel.cli.host.DirectoryRoots;
import dev.keel.cli.host.TerminalQuestions;
import dev.keel.mcp.client.McpClient;
import java.io.BufferedReader;
import java.io.Console;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code keel call} can answer when the server asks, and so declares (a client declares a
 * capability only where something answers it):
 *
 * <ul>
 *   <li>elicitation: from {@code --answer} flags when any are given, else by asking the person
 *       at the terminal when stdin is one; otherwise not declared;
 *   <li>sampling: only at a terminal, where the person writes the reply (the command has no
 *       model of its own); otherwise not declared;
 *   <li>roots: the {@code --root} directories; without any, a stdio server (a subprocess in the
 *       current directory, which it can read anyway) is offered the current directory, and an
 *       HTTP server, which may be anywhere, none.
 * </ul>
 */
final class HostOptions {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--answer", paramLabel = "NAME=VALUE",
      description = "Answer the server's elicitation forms with this field value (repeatable);"
          + " fields not named take the form's default, and a form with a required field "
          + "left unnamed is cancelled.")
  List<String> answers = new ArrayList<>();

  @Option(names = "--root", paramLabel = "DIR",
      description = "Offer this directory as a root (repeatable). Default: the current "
          + "directory for a --stdio server, none for an HTTP server.")
  List<Path> roots = new ArrayList<>();

  /** Registers the handlers this command line allows on {@code builder}. */
  void install(McpClient.Builder builder, boolean stdioServer, PrintStream err) {
    boolean terminal = stdinIsTerminal();
    TerminalQuestions ask = terminal ? new TerminalQuestions(new BufferedReader(
        new InputStreamReader(System.in, Charset.defaultCharset())), err) : null;
    if (!answers.isEmpty()) {
      try {
        builder.elicitation(new AnswerFlags(answers, err));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    } else if (ask != null) {
      builder.elicitation(ask);
    }
    if (ask != null) {
      builder.sampling(ask);
    }
    List<Path> offered = new ArrayList<>(roots);
    for (Path dir : offered) {
      if (!Files.isDirectory(dir)) {
        throw new ParameterException(spec.commandLine(), "--root is not a directory: " + dir);
      }
    }
    if (offered.isEmpty() && stdioServer) {
      offered.add(Path.of(""));
    }
    if (!offered.isEmpty()) {
      builder.roots(new DirectoryRoots(offered));
    }
  }

  /**
   * True when stdin is a terminal. Before JDK 22 a console exists only when stdin and stdout are
   * terminals; from 22 on it may exist regardless, and {@code Console.isTerminal()} tells.
   */
  static boolean stdinIsTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console);
    } catch (NoSuchMethodException e) {
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }
}
