package dev.keel.cli;

import dev.keel.cli.host.AnswerFlags;
import dev.keel.cli.host.Decline;
import dev.keel.cli.host.DirectoryRoots;
import dev.keel.cli.host.SamplingCommand;
import dev.keel.cli.host.TerminalQuestions;
import dev.keel.cli.output.LogLines;
import dev.keel.cli.output.StatusLine;
import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.core.schema.LoggingLevel;
import java.time.Duration;
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
 *   <li>elicitation: {@code --no} declines every question; {@code --yes} accepts every form
 *       (with the {@code --answer} values, the defaults, and yes for open yes/no fields); else
 *       from {@code --answer} flags when any are given; else by asking the person at the
 *       terminal when stdin is one (forms and URLs); otherwise not declared, so nothing ever
 *       waits for an answer nobody can give;
 *   <li>sampling: by the {@code --sampling-command}, else at a terminal, where the person writes
 *       the reply (the command has no model of its own); otherwise not declared;
 *   <li>roots: the {@code --root} directories; without any, a stdio server (a subprocess in the
 *       current directory, which it can read anyway) is offered the current directory, and an
 *       HTTP server, which may be anywhere, none.
 * </ul>
 *
 * <p>It also shows the server's log messages: at warning and above by default, at info with
 * {@code -v}, at debug with {@code -vv}, or at the {@code --log-level} given, which is also the
 * level the client asks the server for ({@code logging/setLevel} in the legacy era, the
 * request's {@code _meta} in the modern one). Without a flag the client asks for nothing, and
 * whatever a server sends below warning is not shown.
 */
final class HostOptions {

  @Option(names = "--yes",
      description = "Accept every elicitation without asking: forms are filled from --answer "
          + "and their defaults, a yes/no field left open is answered yes (an approval), a "
          + "form with another required field left open is cancelled, and a URL is printed.")
  boolean yes;

  @Option(names = "--no", description = "Decline every elicitation without asking.")
  boolean no;

  @Option(names = "--sampling-command", paramLabel = "'CMD ARGS'",
      description = "Answer sampling requests with this command (split into words like a "
          + "shell, but run without one): the request's JSON goes to its stdin, its stdout is "
          + "the reply. A non-zero exit, no output or --sampling-timeout refuses the request.")
  String samplingCommand;

  @Option(names = "--sampling-timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "How long the --sampling-command may take (default ${DEFAULT-VALUE}).")
  long samplingTimeoutSeconds;

  @Option(names = "-v", description = "Show the server's log messages at info (-vv: debug) "
      + "and above on stderr; without it, warnings and above.")
  boolean[] verbose = new boolean[0];

  @Option(names = "--log-level", paramLabel = "LEVEL",
      description = "Show and ask for the server's log messages at this level and above: "
          + "debug, info, notice, warning, error, critical, alert, emergency.")
  String logLevel;

  /** True when something answers elicitation (set by {@link #install}). */
  boolean elicitationDeclared;

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
    install(builder, stdioServer, err, null);
  }

  /**
   * Registers the handlers this command line allows on {@code builder}; questions put to the
   * person pause {@code status} (may be null), and log messages print above it.
   */
  void install(McpClient.Builder builder, boolean stdioServer, PrintStream err,
      StatusLine status) {
    if (yes && no) {
      throw new ParameterException(spec.commandLine(),
          "--yes and --no contradict each other: pass one of them");
    }
    LoggingLevel shown = threshold();
    boolean terminal = stdinIsTerminal();
    TerminalQuestions ask = terminal ? new TerminalQuestions(new BufferedReader(
        new InputStreamReader(System.in, Charset.defaultCharset())), err) : null;
    ElicitationHandler elicitation = null;
    try {
      if (no) {
        elicitation = new Decline(err);
      } else if (yes) {
        elicitation = AnswerFlags.yes(answers, err);
      } else if (!answers.isEmpty()) {
        elicitation = new AnswerFlags(answers, err);
      } else if (ask != null) {
        elicitation = ask;
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (elicitation != null) {
      builder.elicitation(paused(elicitation, status));
      elicitationDeclared = true;
    }
    if (samplingCommand != null) {
      if (samplingTimeoutSeconds <= 0) {
        throw new ParameterException(spec.commandLine(), "--sampling-timeout must be positive");
      }
      List<String> words;
      try {
        words = SamplingCommand.words(samplingCommand);
        builder.sampling(new SamplingCommand(words, Duration.ofSeconds(samplingTimeoutSeconds),
            err));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    } else if (ask != null) {
      builder.sampling(pausedSampling(ask, status));
    }
    builder.notifications((method, params) -> {
      if (method.equals("notifications/message") && params != null) {
        String line = LogLines.format(params, shown);
        if (line != null) {
          if (status != null) {
            status.message(line);
          } else {
            err.println(line);
          }
        }
      }
    });
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

  /** The lowest level shown: {@code --log-level}, else from {@code -v}, else warning. */
  LoggingLevel threshold() {
    if (logLevel != null) {
      try {
        return LoggingLevel.fromWire(logLevel.strip().toLowerCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--log-level must be one of debug, "
            + "info, notice, warning, error, critical, alert, emergency: " + logLevel);
      }
    }
    return verbose.length >= 2 ? LoggingLevel.DEBUG : verbose.length == 1 ? LoggingLevel.INFO
        : LoggingLevel.WARNING;
  }

  /**
   * Asks the server for the chosen level, when one was chosen and the server logs (a legacy
   * server without the capability would answer {@code logging/setLevel} with an error).
   */
  void requestLogLevel(McpClient client, PrintStream err) {
    if (logLevel == null && verbose.length == 0) {
      return;
    }
    if (client.era() == dev.keel.mcp.client.Era.LEGACY
        && (client.serverCapabilities() == null
            || client.serverCapabilities().logging() == null)) {
      err.println("keel: the server does not offer log messages (no logging capability)");
      return;
    }
    try {
      client.setLogLevel(threshold());
    } catch (dev.keel.mcp.core.McpException e) {
      // the messages are an aid: a server that refuses the level still gets the call
      err.println("keel: the server refused the log level: "
          + dev.keel.cli.output.TerminalText.firstLine(e.getMessage(), 200));
    }
  }

  private static ElicitationHandler paused(ElicitationHandler handler, StatusLine status) {
    if (status == null) {
      return handler;
    }
    return new ElicitationHandler() {
      @Override
      public dev.keel.mcp.core.schema.ElicitResult elicit(
          dev.keel.mcp.core.schema.ElicitRequest request) throws Exception {
        status.pause();
        try {
          return handler.elicit(request);
        } finally {
          status.resume();
        }
      }

      @Override
      public boolean supportsUrlMode() {
        return handler.supportsUrlMode();
      }
    };
  }

  private static SamplingHandler pausedSampling(SamplingHandler handler, StatusLine status) {
    if (status == null) {
      return handler;
    }
    return request -> {
      status.pause();
      try {
        return handler.sample(request);
      } finally {
        status.resume();
      }
    };
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
