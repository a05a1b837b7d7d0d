package dev.keel.cli;

import dev.keel.mcp.client.OAuthAuthorizationCode;
import dev.keel.mcp.client.OAuthTokenStore;
import dev.keel.mcp.client.OAuthUserStep;
import java.net.URI;
import java.nio.file.Path;

/** The command line's token store: one owner-only file, shared by every command. */
final class TokenStores {

  private TokenStores() {}

  /** Returns the file: {@code configured}, else {@code ~/.keel/tokens.json}. */
  static Path path(Path configured) {
    return configured != null ? configured
        : Path.of(System.getProperty("user.home"), ".keel", "tokens.json");
  }

  /** Opens the store. */
  static OAuthTokenStore open(Path configured) {
    return OAuthTokenStore.file(path(configured));
  }

  /**
   * The flow of a command that is not {@code login}: it uses and refreshes what a login kept,
   * and when that is not enough it says to sign in again instead of starting a flow here.
   * Returns null when nothing was kept for {@code server}.
   */
  static OAuthAuthorizationCode kept(Path configured, URI server) {
    Path file = path(configured);
    if (!java.nio.file.Files.exists(file)) {
      return null;
    }
    OAuthAuthorizationCode flow = OAuthAuthorizationCode.builder(new OAuthUserStep() {
      @Override
      public URI redirectUri() {
        throw new IllegalStateException("the sign-in to " + server + " has ended; run: keel "
            + "login " + server);
      }

      @Override
      public URI authorize(URI authorizationRequest) {
        throw new IllegalStateException("run: keel login " + server);
      }
    }).tokenStore(OAuthTokenStore.file(file)).build();
    return flow.authorized(server) ? flow : null;
  }
}
