package dev.keel.cli;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The options every server command shares: where to listen, or stdio, and who may call.
 * Without {@code --api-key}, requests run as one local principal, which is allowed only on a
 * loopback address: an unauthenticated server is never exposed to a network by accident.
 */
final class ServerOptions {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port",
      description = "Port to bind; 0 picks a free one (default: 0; for agent: 8765).")
  Integer port;

  @Option(names = "--stdio", description = "Serve MCP on stdin/stdout instead of HTTP.")
  boolean stdio;

  @Option(names = "--api-key", paramLabel = "PRINCIPAL=SECRET",
      description = "Accept 'Authorization: Bearer SECRET' and run as PRINCIPAL (repeatable). "
          + "Without it, only loopback use is allowed, as one local principal.")
  Map<String, String> apiKeys = new LinkedHashMap<>();

  /** Serves {@code server} as the options say (port 0 unless given); returns the exit status. */
  int serve(McpServer server) throws InterruptedException {
    return serve(server, 0, endpoint -> { });
  }

  /**
   * Serves {@code server} as the options say; over HTTP, {@code banner} may print more after
   * the {@code listening on} line.
   *
   * @param defaultPort the port when {@code --port} is not given
   */
  int serve(McpServer server, int defaultPort, Consumer<URI> banner)
      throws InterruptedException {
    if (stdio) {
      return ServeCommands.stdio(server);
    }
    return ServeCommands.http(server, configure(server, port == null ? defaultPort : port),
        banner);
  }

  /** Returns true when requests must carry an API key. */
  boolean authenticated() {
    return !apiKeys.isEmpty();
  }

  private McpHttpServer.Builder configure(McpServer server, int port) {
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be 0-65535: " + port);
    }
    McpHttpServer.Builder http = McpHttpServer.builder(server).host(host).port(port);
    if (apiKeys.isEmpty()) {
      if (!isLoopback(host)) {
        throw new ParameterException(spec.commandLine(), "refusing to serve " + host
            + " without authentication: pass --api-key PRINCIPAL=SECRET or bind 127.0.0.1");
      }
      return http;
    }
    Map<String, String> bySecret = new HashMap<>();
    apiKeys.forEach((principal, secret) -> {
      if (principal.isBlank() || secret == null || secret.isBlank()) {
        throw new ParameterException(spec.commandLine(),
            "--api-key needs PRINCIPAL=SECRET with both parts non-empty");
      }
      if (bySecret.put(secret, principal) != null) {
        throw new ParameterException(spec.commandLine(),
            "two --api-key options share one secret");
      }
    });
    Authenticator authenticator = Authenticator.bearerTokens(bySecret);
    return http.servlet(b -> b.authenticator(authenticator));
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
