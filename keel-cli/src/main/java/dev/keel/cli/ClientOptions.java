package dev.keel.cli;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.client.StreamableHttpTransport;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What the client commands share: where the server is, how to reach it, how to print.
 *
 * <p>TARGET is an {@code http(s)://} URL, or {@code --stdio} with the server's command after
 * {@code --}. The command runs as an argument list, never through a shell.
 */
final class ClientOptions {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--stdio",
      description = "Start the server as a subprocess speaking stdio; its command follows --.")
  boolean stdio;

  @Option(names = {"-H", "--header"}, paramLabel = "'NAME: VALUE'",
      description = "Send this HTTP header with every request (repeatable).")
  List<String> headers = new ArrayList<>();

  @Option(names = "--bearer", paramLabel = "TOKEN", defaultValue = "${env:MCP_BEARER_TOKEN}",
      description = "Send 'Authorization: Bearer TOKEN' (default: $MCP_BEARER_TOKEN).")
  String bearer;

  @Option(names = "--token-store", paramLabel = "FILE", defaultValue = "${env:KEEL_TOKEN_STORE}",
      description = "Tokens kept by 'keel login' (default: $KEEL_TOKEN_STORE or "
          + "~/.keel/tokens.json).")
  java.nio.file.Path tokenStore;

  @Option(names = "--json", description = "Print the raw JSON result, for scripts.")
  boolean json;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "How long to wait for an answer (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--era", paramLabel = "auto|legacy|modern", defaultValue = "auto",
      description = "Protocol era; auto probes with server/discover (default ${DEFAULT-VALUE}).")
  String era;

  /**
   * Returns the printer of results for people, tables fitted to the terminal's width when
   * stdout is a terminal, binary content summarised (commands that save it use
   * {@link SaveOptions}).
   */
  dev.keel.cli.output.ResultPrinter printer() {
    return new dev.keel.cli.output.ResultPrinter(System.out, null, tableWidth());
  }

  /** The widest a table line may be: the terminal's width, or no limit off a terminal. */
  static int tableWidth() {
    return dev.keel.cli.output.Terminals.stdout() ? dev.keel.cli.output.Terminals.width() : 0;
  }

  /** The words of the command line split into the command's own and the server's command. */
  record Target(List<String> words, URI url, List<String> serverCommand) {}

  /**
   * Splits the positional words: with {@code --stdio} everything after {@code --} is the
   * server's command; otherwise the first word is the URL.
   */
  Target target(List<String> positional) {
    List<String> words = positional == null ? List.of() : positional;
    if (stdio) {
      List<String> original = spec.commandLine().getParseResult().originalArgs();
      int dashes = original.indexOf("--");
      int serverWords = dashes < 0 ? 0 : original.size() - dashes - 1;
      if (serverWords == 0) {
        throw new ParameterException(spec.commandLine(),
            "--stdio needs the server's command after --, e.g. --stdio -- ./keel fixtures --stdio");
      }
      if (!headers.isEmpty() || bearer != null && !bearer.isEmpty()) {
        throw new ParameterException(spec.commandLine(),
            "--header and --bearer apply to HTTP servers, not to --stdio");
      }
      int own = words.size() - serverWords;
      return new Target(List.copyOf(words.subList(0, own)), null,
          List.copyOf(words.subList(own, words.size())));
    }
    if (words.isEmpty()) {
      throw new ParameterException(spec.commandLine(),
          "missing TARGET: an http(s):// URL, or --stdio -- COMMAND ARGS...");
    }
    String first = words.get(0);
    String scheme = first.contains("://")
        ? first.substring(0, first.indexOf("://")).toLowerCase(Locale.ROOT) : "";
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ParameterException(spec.commandLine(),
          "TARGET must be an http(s):// URL (or use --stdio -- COMMAND ARGS...): " + first);
    }
    URI url;
    try {
      url = URI.create(first);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "TARGET is not a valid URL: " + first);
    }
    return new Target(List.copyOf(words.subList(1, words.size())), url, List.of());
  }

  /** Connects to the target. */
  McpClient connect(Target target) {
    return connect(target, b -> { });
  }

  /** Connects to the target, letting {@code host} register handlers on the builder first. */
  McpClient connect(Target target, java.util.function.Consumer<McpClient.Builder> host) {
    ClientTransport transport;
    if (target.url() != null) {
      StreamableHttpTransport.Builder b = StreamableHttpTransport.builder(target.url());
      for (String header : headers) {
        int colon = header.indexOf(':');
        if (colon <= 0) {
          throw new ParameterException(spec.commandLine(),
              "--header must look like 'Name: value': " + header);
        }
        try {
          b.header(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), e.getMessage());
        }
      }
      boolean authorization = headers.stream().anyMatch(h -> h.regionMatches(true, 0,
          "Authorization:", 0, 14));
      if (bearer != null && !bearer.isEmpty()) {
        b.bearer(bearer);
      } else if (!authorization) {
        dev.keel.mcp.client.OAuthAuthorizationCode kept =
            TokenStores.kept(tokenStore, target.url());
        if (kept != null) {
          b.oauth(kept);
        }
      }
      transport = b.build();
    } else {
      transport = StdioTransport.builder(target.serverCommand()).build();
    }
    McpClient.Builder builder = McpClient.builder(transport)
        .era(parseEra())
        .clientInfo("keel-cli", "0.1.0")
        .requestTimeout(timeout());
    try {
      host.accept(builder);
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
    return builder.connect();
  }

  Duration timeout() {
    if (timeoutSeconds <= 0) {
      throw new ParameterException(spec.commandLine(), "--timeout must be positive");
    }
    return Duration.ofSeconds(timeoutSeconds);
  }

  private Era parseEra() {
    return switch (era.toLowerCase(Locale.ROOT)) {
      case "auto" -> Era.AUTO;
      case "legacy" -> Era.LEGACY;
      case "modern" -> Era.MODERN;
      default -> throw new ParameterException(spec.commandLine(),
          "--era must be auto, legacy or modern: " + era);
    };
  }
}
