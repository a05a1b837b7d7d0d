package dev.keel.mcp.http.internal.oauth;

import dev.keel.mcp.core.McpJson;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Finds an issuer's {@code jwks_uri} in its metadata: RFC 8414 first (the well-known suffix
 * inserted before the issuer's path), then OpenID Connect discovery both ways. A document is
 * taken only when its {@code issuer} is exactly the configured issuer (RFC 8414 §3.3), so a
 * metadata document for another issuer can never supply the keys.
 */
final class IssuerMetadata {

  private IssuerMetadata() {}

  /** The metadata URLs to try, in order. */
  static List<URI> candidates(URI issuer) {
    String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
    String path = issuer.getRawPath() == null ? "" : issuer.getRawPath();
    if (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    List<URI> uris = new ArrayList<>();
    uris.add(URI.create(origin + "/.well-known/oauth-authorization-server" + path));
    uris.add(URI.create(origin + "/.well-known/openid-configuration" + path));
    if (!path.isEmpty()) {
      uris.add(URI.create(origin + path + "/.well-known/openid-configuration"));
    }
    return uris;
  }

  /**
   * Returns the issuer's {@code jwks_uri}.
   *
   * @throws IllegalStateException when no candidate document names this issuer and a key set
   */
  static URI jwksUri(URI issuer, Fetcher fetcher) {
    List<String> tried = new ArrayList<>();
    for (URI candidate : candidates(issuer)) {
      try {
        JsonNode doc = McpJson.standard().parseObject(fetcher.get(candidate));
        JsonNode named = doc.get("issuer");
        if (named == null || !named.isString() || !named.stringValue().equals(issuer.toString())) {
          tried.add(candidate + " (names another issuer)");
          continue;
        }
        JsonNode jwks = doc.get("jwks_uri");
        if (jwks == null || !jwks.isString()) {
          tried.add(candidate + " (no jwks_uri)");
          continue;
        }
        URI uri = URI.create(jwks.stringValue());
        Fetcher.requireSafe(uri);
        return uri;
      } catch (RuntimeException e) {
        tried.add(candidate + " (" + e.getMessage() + ")");
      }
    }
    throw new IllegalStateException("no metadata of issuer " + issuer + " names its keys; tried "
        + String.join(", ", tried));
  }
}
