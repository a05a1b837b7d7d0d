package dev.keel.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The top-level {@code keel} command: it only lists its subcommands, which {@link Main} adds
 * (all of them, or only the one named on the command line).
 */
@Command(name = "keel", mixinStandardHelpOptions = true, version = "keel 0.1.0",
    description = "Keel: MCP servers and clients for Java, both protocol eras.")
final class KeelCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
