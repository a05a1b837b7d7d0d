package dev.keel.mcp.client.internal;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's half of OAuth discovery: from a server's challenge to its protected-resource
 * metadata (RFC 9728) and from there to its authorization server's metadata (RFC 8414, then
 * OpenID Connect), checking on the way that the metadata is about this resource and this issuer.
 * Every URL it fetches because a server or a document named it is guarded: https, or http to a
 * loopback address; no private or link-local addresses otherwise; redirects never followed.
 */
public final class OAuthDiscovery {

  /** What a token request needs to know. */
  public record Found(String resource, String issuer, URI tokenEndpoint, String scope) {}

  private static final Pattern PARAM = Pattern.compile(
      "([A-Za-z_]+)\\s*=\\s*\"([^\"]*)\"");
  private static final int MAX_BYTES = 256 * 1024;

  private final HttpClient http;
  private final Duration timeout;

  /** Creates it with its own HTTP client. */
  public OAuthDiscovery(Duration timeout) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout)
        .followRedirects(HttpClient.Redirect.NEVER).build();
  }

  /** Returns the named parameter of a {@code WWW-Authenticate: Bearer …} value, or null. */
  public static String param(String challenge, String name) {
    if (challenge == null) {
      return null;
    }
    Matcher m = PARAM.matcher(challenge);
    while (m.find()) {
      if (m.group(1).equalsIgnoreCase(name)) {
        return m.group(2);
      }
    }
    return null;
  }

  /**
   * Finds where to get a token for {@code server}.
   *
   * @param challenge the server's {@code WWW-Authenticate}, or null
   * @throws IllegalStateException naming what could not be found or did not match
   */
  public Found discover(URI server, String challenge) {
    List<URI> candidates = new ArrayList<>();
    String named = param(challenge, "resource_metadata");
    if (named != null) {
      candidates.add(URI.create(named));
    }
    String origin = server.getScheme() + "://" + server.getRawAuthority();
    String path = server.getRawPath() == null || server.getRawPath().equals("/") ? ""
        : server.getRawPath();
    candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
    candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource"));
    JsonNode resourceMetadata = null;
    List<String> tried = new ArrayList<>();
    for (URI candidate : candidates) {
      try {
        resourceMetadata = getJson(candidate);
        break;
      } catch (RuntimeException e) {
        tried.add(candidate + " (" + e.getMessage() + ")");
      }
    }
    if (resourceMetadata == null) {
      throw new IllegalStateException("no protected-resource metadata for " + server
          + "; tried " + String.join(", ", tried));
    }
    String resource = resourceMetadata.path("resource").asString("");
    if (!covers(resource, server)) {
      throw new IllegalStateException("the protected-resource metadata is about " + resource
          + ", not " + server);
    }
    JsonNode servers = resourceMetadata.get("authorization_servers");
    if (servers == null || !servers.isArray() || servers.isEmpty()
        || !servers.get(0).isString()) {
      throw new IllegalStateException("the protected-resource metadata names no "
          + "authorization server");
    }
    String issuer = servers.get(0).stringValue();
    URI tokenEndpoint = tokenEndpoint(URI.create(issuer));
    String scope = param(challenge, "scope");
    return new Found(resource, issuer, tokenEndpoint, scope);
  }

  private URI tokenEndpoint(URI issuer) {
    String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
    String path = issuer.getRawPath() == null ? "" : issuer.getRawPath();
    if (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    List<URI> candidates = new ArrayList<>(List.of(
        URI.create(origin + "/.well-known/oauth-authorization-server" + path),
        URI.create(origin + "/.well-known/openid-configuration" + path)));
    if (!path.isEmpty()) {
      candidates.add(URI.create(origin + path + "/.well-known/openid-configuration"));
    }
    List<String> tried = new ArrayList<>();
    for (URI candidate : candidates) {
      try {
        JsonNode doc = getJson(candidate);
        if (!doc.path("issuer").asString("").equals(issuer.toString())) {
          tried.add(candidate + " (names another issuer)");
          continue;
        }
        String token = doc.path("token_endpoint").asString("");
        if (token.isEmpty()) {
          tried.add(candidate + " (no token_endpoint)");
          continue;
        }
        URI uri = URI.create(token);
        requireSafe(uri);
        return uri;
      } catch (RuntimeException e) {
        tried.add(candidate + " (" + e.getMessage() + ")");
      }
    }
    throw new IllegalStateException("no metadata of " + issuer + " names a token endpoint; "
        + "tried " + String.join(", ", tried));
  }

  /** RFC 9728 §3.3: the metadata's resource must be the server's URL or a prefix of it. */
  static boolean covers(String resource, URI server) {
    if (resource.isEmpty()) {
      return false;
    }
    String target = server.toString();
    if (target.equals(resource)) {
      return true;
    }
    String prefix = resource.endsWith("/") ? resource : resource + "/";
    return target.startsWith(prefix);
  }

  /**
   * Posts a token request and returns the JSON answer.
   *
   * @throws IllegalStateException with the authorization server's error code, never a secret
   */
  public ObjectNode postForm(URI uri, String form, String basicAuth) {
    requireSafe(uri);
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form));
    if (basicAuth != null) {
      b.header("Authorization", "Basic " + basicAuth);
    }
    HttpResponse<InputStream> response = send(b.build(), uri);
    String body = read(response, uri);
    ObjectNode json;
    try {
      json = McpJson.standard().parseObject(body);
    } catch (RuntimeException e) {
      throw new IllegalStateException(uri + " answered HTTP " + response.statusCode()
          + " without JSON");
    }
    if (response.statusCode() != 200) {
      throw new IllegalStateException("the authorization server refused the token request: "
          + dev.keel.mcp.core.Text.safe(json.path("error").asString("HTTP "
          + response.statusCode())));
    }
    return json;
  }

  private JsonNode getJson(URI uri) {
    requireSafe(uri);
    HttpResponse<InputStream> response = send(HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json").GET().build(), uri);
    String body = read(response, uri);
    if (response.statusCode() != 200) {
      throw new IllegalStateException("HTTP " + response.statusCode());
    }
    return McpJson.standard().parseObject(body);
  }

  private HttpResponse<InputStream> send(HttpRequest request, URI uri) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new IllegalStateException("cannot reach " + uri + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reaching " + uri, e);
    }
  }

  private static String read(HttpResponse<InputStream> response, URI uri) {
    try (InputStream in = response.body()) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw new IllegalStateException(uri + " answered more than " + MAX_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + uri + ": " + e.getMessage(), e);
    }
  }

  /**
   * Refuses what a server or a document must not make the client fetch: anything but https or
   * http to loopback, and private, link-local or any-local addresses over https.
   */
  public static void requireSafe(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost();
    if (host == null) {
      throw new IllegalArgumentException("no host in " + uri);
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("unknown host in " + uri);
    }
    if (address.isLoopbackAddress()) {
      if (scheme.equals("http") || scheme.equals("https")) {
        return;
      }
    } else if (scheme.equals("https") && !address.isSiteLocalAddress()
        && !address.isLinkLocalAddress() && !address.isAnyLocalAddress()
        && !address.isMulticastAddress()) {
      return;
    }
    throw new IllegalArgumentException("refusing to fetch " + uri + ": only https to public "
        + "addresses, or loopback");
  }
}
