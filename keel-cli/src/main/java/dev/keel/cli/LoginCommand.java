package dev.keel.cli;

import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.OAuthAuthorizationCode;
import dev.keel.mcp.client.OAuthUserStep;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.Text;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code keel login URL}: the OAuth authorization-code flow for a person, with the redirect
 * caught on 127.0.0.1 (RFC 8252). The tokens go to the token store, where {@code keel tools},
 * {@code call} and {@code read} find them and refresh them. It prints the authorization URL
 * (and opens a browser unless told not to); it never prints a token, a code or a secret.
 */
@Command(name = "login", mixinStandardHelpOptions = true,
    description = "Sign in to an OAuth-protected MCP server; later commands use the tokens.",
    footer = {"", "Examples:", "  keel login https://mcp.example.com/mcp",
        "  keel login --client-id my-app http://127.0.0.1:8765/mcp"})
final class LoginCommand implements Callable<Integer> {

  @Parameters(paramLabel = "URL", description = "The MCP server's URL.")
  URI url;

  @Option(names = "--client-id", paramLabel = "ID",
      description = "A client registered beforehand (otherwise the server's registration).")
  String clientId;

  @Option(names = "--client-secret", paramLabel = "SECRET",
      defaultValue = "${env:KEEL_CLIENT_SECRET}",
      description = "The secret of --client-id (default: $KEEL_CLIENT_SECRET).")
  String clientSecret;

  @Option(names = "--scope", paramLabel = "SCOPE",
      description = "A scope to ask for beside those the server names (repeatable).")
  List<String> scopes = new ArrayList<>();

  @Option(names = "--no-browser", description = "Only print the URL; do not open a browser.")
  boolean noBrowser;

  @Option(names = "--token-store", paramLabel = "FILE", defaultValue = "${env:KEEL_TOKEN_STORE}",
      description = "Where tokens are kept (default: $KEEL_TOKEN_STORE or ~/.keel/tokens.json).")
  Path tokenStore;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "300",
      description = "How long to wait for the sign-in (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Override
  public Integer call() {
    Duration timeout = Duration.ofSeconds(Math.max(1, timeoutSeconds));
    OAuthUserStep step = OAuthUserStep.loopback(this::show, timeout);
    OAuthAuthorizationCode.Builder flow = OAuthAuthorizationCode.builder(step)
        .clientName("keel command line").tokenStore(TokenStores.open(tokenStore));
    if (clientId != null) {
      if (clientSecret != null && !clientSecret.isEmpty()) {
        flow.client(clientId, clientSecret);
      } else {
        flow.clientId(clientId);
      }
    }
    scopes.forEach(flow::scope);
    OAuthAuthorizationCode login = flow.build();
    // a new sign-in, even when tokens are kept: that is what the person asked for
    login.signOut(url);
    try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(url)
        .oauth(login).listeningStream(false).build())
        .clientInfo("keel-cli", "0.1.0").connectTimeout(timeout.plusSeconds(30))
        .connect()) {
      client.listTools();
    } catch (RuntimeException e) {
      System.err.println("keel login: " + Text.safe(e.getMessage()));
      return 1;
    }
    if (!login.authorized(url)) {
      System.out.println(url + " did not ask for authorization; nothing was stored");
      return 0;
    }
    System.out.println("logged in to " + url + " (tokens kept in "
        + TokenStores.path(tokenStore) + ")");
    return 0;
  }

  private void show(URI request) {
    System.err.println("Open this URL in a browser to sign in:");
    System.err.println("  " + request);
    System.err.flush();
    if (!noBrowser) {
      try {
        new ProcessBuilder("xdg-open", request.toString()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      } catch (IOException e) {
        // no browser opener here: the printed URL is enough
      }
    }
  }
}
