package dev.keel.cli;

import picocli.CommandLine;

/** The {@code keel} command's entry point. */
public final class Main {

  private Main() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.exit(newCommandLine().execute(args));
  }

  /** Returns the configured command line (also used by tests). */
  public static CommandLine newCommandLine() {
    return new CommandLine(new KeelCommand());
  }
}
