package dev.keel.mcp.http.internal.oauth;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Reads the authorization server's documents (metadata, keys): JSON over the JDK's HTTP client,
 * a bounded time and size, no redirects, and only from https or a loopback http address.
 */
final class Fetcher {

  /** Far above any real key set or metadata document. */
  static final int MAX_BYTES = 256 * 1024;

  private final HttpClient http;
  private final Duration timeout;

  Fetcher(Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout)
        .followRedirects(HttpClient.Redirect.NEVER).build();
  }

  /**
   * Returns the document's text.
   *
   * @throws IllegalStateException when it cannot be read, naming why
   */
  String get(URI uri) {
    requireSafe(uri);
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json").GET().build();
    return read(uri, request);
  }

  private String read(URI uri, HttpRequest request) {
    try {
      HttpResponse<InputStream> response = http.send(request,
          HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() != 200) {
          throw new IllegalStateException(uri + " answered HTTP " + response.statusCode());
        }
        byte[] bytes = body.readNBytes(MAX_BYTES + 1);
        if (bytes.length > MAX_BYTES) {
          throw new IllegalStateException(uri + " is larger than " + MAX_BYTES + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + uri + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading " + uri, e);
    }
  }

  /**
   * Posts a form with HTTP Basic client authentication and returns the answer's text.
   *
   * @throws IllegalStateException when it cannot be read, naming why (never the form)
   */
  String postForm(URI uri, String form, String clientId, String clientSecret) {
    requireSafe(uri);
    String credentials = java.util.Base64.getEncoder().encodeToString(
        (formEncode(clientId) + ":" + formEncode(clientSecret))
            .getBytes(StandardCharsets.UTF_8));
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Authorization", "Basic " + credentials)
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    return read(uri, request);
  }

  /** RFC 6749 §2.3.1: the client id and secret are form-encoded before Basic. */
  static String formEncode(String value) {
    return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** Refuses anything but https, or http to a loopback address (tests, local set-ups). */
  static void requireSafe(URI uri) {
    String scheme = uri.getScheme();
    if ("https".equalsIgnoreCase(scheme)) {
      return;
    }
    String host = uri.getHost();
    boolean loopback = host != null && (host.equals("localhost") || host.equals("127.0.0.1")
        || host.equals("[::1]") || host.equals("::1"));
    if ("http".equalsIgnoreCase(scheme) && loopback) {
      return;
    }
    throw new IllegalArgumentException("an authorization server URL must be https (or http on "
        + "loopback): " + uri);
  }
}
