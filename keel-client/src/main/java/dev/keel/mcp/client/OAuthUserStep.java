package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.LoopbackRedirect;
import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The part of an authorization-code flow that needs a person: the authorization request is shown
 * to them (a browser opens it, or they are told to), they sign in and consent at the
 * authorization server, and its redirect comes back with a code. {@link #loopback} does this the
 * way RFC 8252 recommends for native applications: a listener on 127.0.0.1 and an ephemeral
 * port catches the redirect.
 */
public interface OAuthUserStep {

  /** Returns the redirect URI to register and to name in the authorization request. */
  URI redirectUri();

  /**
   * Shows {@code authorizationRequest} to the user and returns the redirect it ended in, with its
   * query ({@code code}, {@code state}, {@code iss}, or {@code error}).
   *
   * @throws RuntimeException when the user did not complete it (closed, timed out)
   */
  URI authorize(URI authorizationRequest);

  /**
   * Catches the redirect on {@code http://127.0.0.1:PORT/callback}; {@code show} is given the
   * authorization request to open or print. The listener answers only that path, lives only
   * while a flow waits, and gives up after {@code timeout}.
   */
  static OAuthUserStep loopback(Consumer<URI> show, Duration timeout) {
    return new LoopbackRedirect(show, timeout);
  }
}
