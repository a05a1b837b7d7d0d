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

  /**
   * An authorization server as its metadata describes it (RFC 8414). A list that the metadata
   * leaves out is null, which is not the same as empty: an absent
   * {@code code_challenge_methods_supported} means no PKCE, an absent
   * {@code token_endpoint_auth_methods_supported} means {@code client_secret_basic}.
   *
   * @param fromMetadata false when the server published no metadata and the 2025-03-26
   *     default endpoints are assumed
   */
  public record AuthServer(String issuer, URI authorizationEndpoint, URI tokenEndpoint,
      URI registrationEndpoint, List<String> codeChallengeMethods, boolean issParameter,
      List<String> scopesSupported, boolean clientIdMetadataDocuments,
      List<String> tokenAuthMethods, boolean fromMetadata) {}

  /**
   * What a token request needs to know.
   *
   * @param resource the resource indicator (RFC 8707) to ask a token for
   * @param scopes the scopes the challenge names (none when it names none)
   * @param resourceScopes the protected resource's {@code scopes_supported}, or null
   */
  public record Found(String resource, AuthServer server, List<String> scopes,
      List<String> resourceScopes) {

    /** Returns the issuer of the authorization server. */
    public String issuer() {
      return server.issuer();
    }

    /** Returns the token endpoint. */
    public URI tokenEndpoint() {
      return server.tokenEndpoint();
    }
  }

  private static final Pattern PARAM = Pattern.compile(
      "([A-Za-z_]+)\\s*=\\s*\"([^\"]*)\"");
  private static final int MAX_BYTES = 256 * 1024;

  private final HttpClient http;
  private final Duration timeout;
  private final boolean privateNetworks;

  /** Creates it with its own HTTP client; only public addresses over https, or loopback. */
  public OAuthDiscovery(Duration timeout) {
    this(timeout, false);
  }

  /**
   * Creates it with its own HTTP client.
   *
   * @param privateNetworks also https to private and link-local addresses (an authorization
   *     server inside the organisation's network)
   */
  public OAuthDiscovery(Duration timeout, boolean privateNetworks) {
    this.privateNetworks = privateNetworks;
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

  /** Returns the scopes of a space-separated {@code scope} value; none for null or blank. */
  public static List<String> scopes(String value) {
    return value == null || value.isBlank() ? List.of() : List.of(value.trim().split("\\s+"));
  }

  /**
   * Finds where to get a token for {@code server}: its protected-resource metadata (the
   * challenge's {@code resource_metadata}, then the path-suffixed, then the root well-known
   * URI), and its authorization server's metadata. A server that publishes no protected-resource
   * metadata is taken for a 2025-03-26 server, whose own origin is its authorization server.
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
    if (!path.isEmpty()) {
      candidates.add(URI.create(origin + "/.well-known/oauth-protected-resource" + path));
    }
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
    List<String> scope = scopes(param(challenge, "scope"));
    if (resourceMetadata == null) {
      if (named != null) {
        throw new IllegalStateException("no protected-resource metadata for " + server
            + "; tried " + String.join(", ", tried));
      }
      // 2025-03-26: no protected-resource metadata; the server's origin is the issuer.
      return new Found(server.toString(), legacyServer(origin), scope, null);
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
    return new Found(resource, authServer(URI.create(issuer)), scope,
        strings(resourceMetadata.get("scopes_supported")));
  }

  /**
   * Reads the metadata of the authorization server {@code issuer} names (RFC 8414, then OpenID
   * Connect, in the order the MCP specification gives for issuers with and without a path). A
   * document whose {@code issuer} is not exactly {@code issuer} is not used (RFC 8414 §3.3).
   */
  public AuthServer authServer(URI issuer) {
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
      JsonNode doc;
      try {
        doc = getJson(candidate);
      } catch (RuntimeException e) {
        tried.add(candidate + " (" + e.getMessage() + ")");
        continue;
      }
      if (!doc.path("issuer").asString("").equals(issuer.toString())) {
        // A document about another issuer is an attack or a mistake; either way not ours,
        // and no other document of this server is trusted after it.
        throw new IllegalStateException("the metadata at " + candidate + " names the issuer "
            + dev.keel.mcp.core.Text.safe(doc.path("issuer").asString("(none)")) + ", not "
            + issuer);
      }
      return fromMetadata(issuer.toString(), doc, candidate);
    }
    throw new IllegalStateException("no metadata for the authorization server " + issuer
        + "; tried " + String.join(", ", tried));
  }

  private AuthServer legacyServer(String origin) {
    URI wellKnown = URI.create(origin + "/.well-known/oauth-authorization-server");
    JsonNode doc;
    try {
      doc = getJson(wellKnown);
    } catch (RuntimeException e) {
      // no metadata at all: the 2025-03-26 default endpoints, with PKCE as the spec requires
      return new AuthServer(origin, URI.create(origin + "/authorize"),
          URI.create(origin + "/token"), URI.create(origin + "/register"), List.of("S256"),
          false, null, false, null, false);
    }
    // 2025-03-26 knew no issuer check; a document the server's own origin serves may name an
    // issuer under that origin (often with a path), but never one elsewhere.
    String issuer = doc.path("issuer").asString("");
    if (!issuer.equals(origin) && !issuer.startsWith(origin + "/")) {
      throw new IllegalStateException("the metadata at " + wellKnown + " names the issuer "
          + dev.keel.mcp.core.Text.safe(issuer) + ", not " + origin);
    }
    return fromMetadata(issuer, doc, wellKnown);
  }

  private AuthServer fromMetadata(String issuer, JsonNode doc, URI where) {
    URI token = endpoint(doc, "token_endpoint", where);
    if (token == null) {
      throw new IllegalStateException("the metadata at " + where + " names no token_endpoint");
    }
    return new AuthServer(issuer, endpoint(doc, "authorization_endpoint", where), token,
        endpoint(doc, "registration_endpoint", where),
        strings(doc.get("code_challenge_methods_supported")),
        doc.path("authorization_response_iss_parameter_supported").asBoolean(false),
        strings(doc.get("scopes_supported")),
        doc.path("client_id_metadata_document_supported").asBoolean(false),
        strings(doc.get("token_endpoint_auth_methods_supported")), true);
  }

  private URI endpoint(JsonNode doc, String field, URI where) {
    String value = doc.path(field).asString("");
    if (value.isEmpty()) {
      return null;
    }
    URI uri;
    try {
      uri = URI.create(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the metadata at " + where + " has a malformed " + field);
    }
    guard(uri);
    return uri;
  }

  private static List<String> strings(JsonNode array) {
    if (array == null || !array.isArray()) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (JsonNode n : array) {
      if (n.isString()) {
        out.add(n.stringValue());
      }
    }
    return List.copyOf(out);
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
   * Posts a token request and returns the token it answered.
   *
   * @throws IllegalStateException with the authorization server's error code, never a secret
   */
  public TokenAnswer requestToken(URI uri, String form, String basicAuth) {
    guard(uri);
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form));
    if (basicAuth != null) {
      b.header("Authorization", "Basic " + basicAuth);
    }
    return TokenAnswer.of(answer(send(b.build(), uri), uri, "the token request", false));
  }

  /**
   * Reads an authorization server's JSON answer.
   *
   * @throws IllegalStateException naming its error code (never anything else it said) when it
   *     refused {@code what}
   */
  private static ObjectNode answer(HttpResponse<InputStream> response, URI uri, String what,
      boolean created) {
    String body = read(response, uri);
    ObjectNode json;
    try {
      json = McpJson.standard().parseObject(body);
    } catch (RuntimeException e) {
      throw new IllegalStateException(uri + " answered HTTP " + response.statusCode()
          + " without JSON");
    }
    int status = response.statusCode();
    if (status != 200 && !(created && status == 201)) {
      throw new IllegalStateException("the authorization server refused " + what + ": "
          + dev.keel.mcp.core.Text.safe(json.path("error").asString("HTTP " + status)));
    }
    return json;
  }

  /**
   * Registers a client (RFC 7591) and returns the registration.
   *
   * @throws IllegalStateException with the authorization server's error code
   */
  public ObjectNode register(URI uri, ObjectNode metadata) {
    guard(uri);
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(metadata.toString())).build();
    ObjectNode json = answer(send(request, uri), uri, "the registration", true);
    if (json.path("client_id").asString("").isEmpty()) {
      throw new IllegalStateException("the registration at " + uri + " returned no client_id");
    }
    return json;
  }

  private JsonNode getJson(URI uri) {
    guard(uri);
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

  /** {@link #requireSafe}, or with private networks allowed only its scheme rule. */
  public void guard(URI uri) {
    if (!privateNetworks) {
      requireSafe(uri);
      return;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("https")) {
      return;
    }
    requireSafe(uri); // http: loopback only, as always
  }

  /**
   * Refuses what a server or a document must not make the client fetch: anything but https or
   * http to loopback, and private (IPv4 private, IPv6 unique-local), link-local or any-local
   * addresses over https.
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
        && !address.isMulticastAddress() && !uniqueLocal(address)) {
      return;
    }
    throw new IllegalArgumentException("refusing to fetch " + uri + ": only https to public "
        + "addresses, or loopback");
  }

  /** IPv6 unique-local addresses (fc00::/7), which {@code isSiteLocalAddress} does not cover. */
  private static boolean uniqueLocal(InetAddress address) {
    return address instanceof java.net.Inet6Address && (address.getAddress()[0] & 0xfe) == 0xfc;
  }
}
