package dev.keel.cli;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.OAuthResourceServer;
import dev.keel.mcp.server.McpServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The options every server command shares: where to listen, or stdio, and who may call.
 * Without {@code --api-key} or {@code --oauth-issuer}, requests run as one local principal,
 * which is allowed only on a loopback address: an unauthenticated server is never exposed to a
 * network by accident.
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

  @Option(names = "--oauth-issuer", paramLabel = "URL",
      description = "Accept OAuth access tokens (JWTs) issued by this authorization server; "
          + "needs --oauth-audience. Works beside --api-key.")
  URI oauthIssuer;

  @Option(names = "--oauth-audience", paramLabel = "URL",
      description = "This server's canonical URI, which tokens must name as their audience "
          + "and the protected-resource metadata names as the resource.")
  URI oauthAudience;

  @Option(names = "--oauth-scope", paramLabel = "SCOPE",
      description = "A scope every token must grant (repeatable; 403 otherwise).")
  List<String> oauthScopes = new ArrayList<>();

  @Option(names = "--redis", paramLabel = "URI",
      description = "Run as one node of several behind a load balancer, sharing sessions, "
          + "tasks, the requestState key ring and a bus through this Redis "
          + "(redis://HOST:PORT).")
  String redis;

  @Option(names = "--console",
      description = "Serve the operator console at /console/ on the same port; needs at least "
          + "one --operator.")
  boolean console;

  @Option(names = "--operator", paramLabel = "NAME=SECRET",
      description = "An operator who may sign in to the console with SECRET (at least 16 "
          + "characters; repeatable). Operators' secrets open only the console, never /mcp.")
  Map<String, String> operators = new LinkedHashMap<>();

  /** Extra console tables a command adds (the agent's recent statements). */
  Consumer<dev.keel.mcp.http.console.Console.Builder> consolePanels = b -> { };

  private dev.keel.mcp.redis.RedisRequestStateKeys sharedKeys;
  private dev.keel.mcp.redis.RedisCluster cluster;

  /**
   * What the options change in the server before it is built: with {@code --redis}, the state
   * the nodes share. Connects to Redis; a Redis that cannot be reached stops the start.
   */
  java.util.function.Consumer<McpServer.Builder> shared() {
    if (redis == null) {
      return b -> { };
    }
    try {
      sharedKeys = dev.keel.mcp.redis.RedisRequestStateKeys.builder(redis).build();
      cluster = dev.keel.mcp.redis.RedisCluster.builder(redis).build();
    } catch (RuntimeException e) {
      closeShared();
      throw new ParameterException(spec.commandLine(), "cannot reach --redis " + redis + ": "
          + dev.keel.mcp.core.Text.safe(e.getMessage()));
    }
    dev.keel.mcp.redis.RedisTaskStore tasks =
        dev.keel.mcp.redis.RedisTaskStore.builder(cluster).build();
    return b -> b.requestStateKeys(sharedKeys).cluster(cluster).taskStore(tasks);
  }

  /** Closes what {@link #shared()} opened. */
  void closeShared() {
    if (sharedKeys != null) {
      sharedKeys.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

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
    try {
      checkConsole();
      if (stdio) {
        return ServeCommands.stdio(server);
      }
      McpHttpServer.Builder http = configure(server, port == null ? defaultPort : port);
      if (console) {
        http.console(console());
      }
      return ServeCommands.http(server, http, banner);
    } finally {
      closeShared();
    }
  }

  /**
   * Refuses console options that cannot work, before anything is served: {@code --console}
   * without an operator (nobody could sign in), on stdio, or operators without the console.
   */
  void checkConsole() {
    if (console && stdio) {
      throw new ParameterException(spec.commandLine(),
          "--console needs HTTP: it cannot be served with --stdio");
    }
    if (console && operators.isEmpty()) {
      throw new ParameterException(spec.commandLine(),
          "--console needs at least one --operator NAME=SECRET: nobody could sign in");
    }
    if (!console && !operators.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--operator needs --console");
    }
  }

  private dev.keel.mcp.http.console.Console console() {
    dev.keel.mcp.http.console.Console.Builder b = dev.keel.mcp.http.console.Console.builder();
    try {
      operators.forEach(b::operator);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--operator: " + e.getMessage());
    }
    if (operators.values().stream().anyMatch(apiKeys::containsValue)) {
      // the same secret in both places would let an MCP client into the console
      throw new ParameterException(spec.commandLine(),
          "an --operator secret must differ from every --api-key secret");
    }
    consolePanels.accept(b);
    return b.build();
  }

  /** Returns true when requests must carry a credential (an API key or an access token). */
  boolean authenticated() {
    return !apiKeys.isEmpty() || oauthIssuer != null;
  }

  private McpHttpServer.Builder configure(McpServer server, int port) {
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be 0-65535: " + port);
    }
    McpHttpServer.Builder http = McpHttpServer.builder(server).host(host).port(port);
    OAuthResourceServer oauth = oauth();
    if (apiKeys.isEmpty() && oauth == null) {
      if (!isLoopback(host)) {
        throw new ParameterException(spec.commandLine(), "refusing to serve " + host
            + " without authentication: pass --api-key PRINCIPAL=SECRET, --oauth-issuer, or "
            + "bind 127.0.0.1");
      }
      return http;
    }
    if (apiKeys.isEmpty()) {
      return http.servlet(b -> b.oauth(oauth));
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
    Authenticator keys = Authenticator.bearerTokens(bySecret);
    if (oauth == null) {
      return http.servlet(b -> b.authenticator(keys));
    }
    return http.servlet(b -> b.oauth(oauth).authenticator(Authenticator.anyOf(oauth, keys)));
  }

  private OAuthResourceServer oauth() {
    if (oauthIssuer == null) {
      if (oauthAudience != null || !oauthScopes.isEmpty()) {
        throw new ParameterException(spec.commandLine(),
            "--oauth-audience and --oauth-scope need --oauth-issuer");
      }
      return null;
    }
    if (oauthAudience == null) {
      throw new ParameterException(spec.commandLine(),
          "--oauth-issuer needs --oauth-audience (this server's canonical URI)");
    }
    try {
      return OAuthResourceServer.builder(oauthIssuer, oauthAudience)
          .requiredScopes(oauthScopes.toArray(String[]::new)).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
