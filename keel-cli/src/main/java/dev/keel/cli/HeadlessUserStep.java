package dev.keel.cli;

import dev.keel.mcp.client.OAuthUserStep;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The user step of a test authorization server that grants without asking anyone: the
 * authorization request is fetched, and the redirect it answers with (never followed) is the
 * result. Only the conformance client uses it; a person's client uses
 * {@link OAuthUserStep#loopback}.
 */
final class HeadlessUserStep implements OAuthUserStep {

  private static final URI REDIRECT = URI.create("http://127.0.0.1:1/callback");

  private final HttpClient http = HttpClient.newBuilder()
      .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();

  @Override
  public URI redirectUri() {
    return REDIRECT;
  }

  @Override
  public URI authorize(URI authorizationRequest) {
    try {
      HttpResponse<Void> response = http.send(HttpRequest.newBuilder(authorizationRequest)
          .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.discarding());
      String location = response.headers().firstValue("Location").orElseThrow(() ->
          new IllegalStateException("the authorization endpoint answered HTTP "
              + response.statusCode() + " without a redirect"));
      return URI.create(location);
    } catch (IOException e) {
      throw new IllegalStateException("cannot reach the authorization endpoint: "
          + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at the authorization endpoint", e);
    }
  }
}
