package dev.keel.conformance;

import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What a person's browser does at the test authorization server, driven headlessly: it opens the
 * authorization request, is sent to the login form, signs in, and follows the redirects until
 * one leaves for the client's redirect URI, which it returns without following.
 */
final class BrowserStandIn {

  private BrowserStandIn() {}

  /** Signs in as {@code user} and returns the redirect to {@code redirectPrefix}. */
  static URI signIn(URI authorizationRequest, String user, String password,
      String redirectPrefix) throws Exception {
    HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
        .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10))
        .build();
    URI next = authorizationRequest;
    boolean signedIn = false;
    for (int hop = 0; hop < 10; hop++) {
      HttpResponse<String> page = browser.send(HttpRequest.newBuilder(next)
          .header("Accept", "text/html").timeout(Duration.ofSeconds(20)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (page.statusCode() == 200 && next.getPath().equals("/login") && !signedIn) {
        String form = "username=" + URLEncoder.encode(user, StandardCharsets.UTF_8)
            + "&password=" + URLEncoder.encode(password, StandardCharsets.UTF_8);
        page = browser.send(HttpRequest.newBuilder(next)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "text/html").timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.ofString(form)).build(),
            HttpResponse.BodyHandlers.ofString());
        signedIn = true;
      }
      if (page.statusCode() / 100 != 3) {
        throw new IllegalStateException("the authorization server answered HTTP "
            + page.statusCode() + " at " + next.getPath() + ":\n" + page.body());
      }
      URI location = next.resolve(page.headers().firstValue("Location").orElseThrow());
      if (location.toString().startsWith(redirectPrefix)) {
        return location;
      }
      next = location;
    }
    throw new IllegalStateException("no redirect to " + redirectPrefix + " after 10 hops");
  }
}
