package dev.keel.mcp.http;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.internal.Fingerprints;
import dev.keel.mcp.http.internal.oauth.AccessTokens;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Keel server as an OAuth 2.1 resource server: JWT access tokens issued by one authorization
 * server for this resource, and the protected-resource metadata (RFC 9728) that tells clients
 * where to get one.
 *
 * <p>A token is taken only from {@code Authorization: Bearer} (a request that carries one in its
 * query string is refused outright). A JWT is valid when it is signed by one of the issuer's keys
 * with an allowed asymmetric algorithm, its {@code iss} is the issuer, its {@code aud} names
 * {@link Builder#audience this resource}, it has not expired (give or take the clock skew), and
 * it grants every {@link Builder#requiredScopes required scope}. The issuer's keys come from its
 * metadata on first use and are fetched again, at a bounded rate, when a token names an unknown
 * key. Opaque tokens are accepted only with {@link Builder#introspection}. A refusal is 401 with {@code WWW-Authenticate: Bearer resource_metadata="…", scope="…"}
 * ({@code error="invalid_token"} when a token was presented), or 403 with
 * {@code error="insufficient_scope"} naming every scope needed.
 *
 * <p>The principal is the token's subject; its fingerprint, which sessions, tasks and
 * subscriptions bind to, is derived from issuer and subject, so the same user is the same owner
 * whatever token they present; its claims are the token's verified claims. The token itself is
 * neither kept nor logged nor forwarded.
 *
 * <pre>{@code
 * OAuthResourceServer oauth = OAuthResourceServer.builder(
 *         URI.create("https://auth.example.com/realms/mcp"),
 *         URI.create("https://mcp.example.com/mcp"))
 *     .requiredScopes("mcp:tools")
 *     .build();
 * McpHttpServer.builder(server).servlet(s -> s.oauth(oauth)).start();
 * }</pre>
 */
public final class OAuthResourceServer implements Authenticator {

  private static final String REFUSAL = OAuthResourceServer.class.getName() + ".refusal";
  private static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";

  private final URI issuer;
  private final URI resource;
  private final Set<String> requiredScopes;
  private static final String OFFLINE_ACCESS = "offline_access";

  private final Set<String> scopesSupported;
  private final String resourceName;
  private final AccessTokens tokens;

  private OAuthResourceServer(Builder b) {
    this.issuer = b.issuer;
    this.resource = b.resource;
    this.requiredScopes = Set.copyOf(b.requiredScopes);
    Set<String> supported = new LinkedHashSet<>(b.scopesSupported);
    supported.addAll(b.requiredScopes);
    supported.remove(OFFLINE_ACCESS);
    this.scopesSupported = Set.copyOf(supported);
    this.resourceName = b.resourceName;
    this.tokens = new AccessTokens(b.issuer, b.jwksUri,
        b.audience == null ? b.resource.toString() : b.audience, b.algorithms, b.clockSkew,
        b.keyRefreshInterval, b.fetchTimeout);
    if (b.introspectionEndpoint != null) {
      tokens.introspectWith(b.introspectionEndpoint, b.introspectionClientId,
          b.introspectionSecret, b.introspectionCache);
    }
  }

  /**
   * Starts a resource server for tokens of {@code issuer} meant for {@code resource}.
   *
   * @param issuer the authorization server's issuer identifier, exactly as its tokens name it
   * @param resource this server's canonical URI (RFC 8707), for example
   *     {@code https://mcp.example.com/mcp}: the audience tokens must name, and where the
   *     metadata's path comes from
   */
  public static Builder builder(URI issuer, URI resource) {
    return new Builder(issuer, resource);
  }

  @Override
  public Optional<Principal> authenticate(HttpServletRequest request) {
    String query = request.getQueryString();
    if (query != null && (query.startsWith("access_token=") || query.contains("&access_token="))) {
      // RFC 6750 §2.3 is not offered: a token in a URL ends up in logs and histories.
      request.setAttribute(REFUSAL, new Refusal(401, challenge("invalid_request")));
      return Optional.empty();
    }
    String header = request.getHeader("Authorization");
    if (header == null || header.length() < 8
        || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      request.setAttribute(REFUSAL, new Refusal(401, challenge(null)));
      return Optional.empty();
    }
    AccessTokens.Token token = tokens.verify(header.substring(7).trim());
    if (token == null) {
      request.setAttribute(REFUSAL, new Refusal(401, challenge("invalid_token")));
      return Optional.empty();
    }
    if (!token.scopes().containsAll(requiredScopes)) {
      request.setAttribute(REFUSAL, new Refusal(403, challenge("insufficient_scope")));
      return Optional.empty();
    }
    return Optional.of(new Principal(token.subject(),
        "oauth:" + Fingerprints.sha256Prefix(token.issuer() + "\n" + token.subject()), token.claims(),
        token.scopes()));
  }

  @Override
  public Refusal refusal(HttpServletRequest request) {
    Object refusal = request.getAttribute(REFUSAL);
    return refusal instanceof Refusal r ? r : new Refusal(401, challenge(null));
  }

  @Override
  public Refusal insufficientScope(HttpServletRequest request, Set<String> missing) {
    Set<String> needed = new java.util.TreeSet<>(requiredScopes);
    needed.addAll(missing);
    return new Refusal(403, "Bearer error=\"insufficient_scope\", resource_metadata=\""
        + metadataUri() + "\", scope=\"" + String.join(" ", needed) + "\"");
  }

  private String challenge(String error) {
    StringBuilder value = new StringBuilder("Bearer");
    String sep = " ";
    if (error != null) {
      value.append(sep).append("error=\"").append(error).append('"');
      sep = ", ";
    }
    value.append(sep).append("resource_metadata=\"").append(metadataUri()).append('"');
    if (!requiredScopes.isEmpty()) {
      value.append(", scope=\"").append(String.join(" ", requiredScopes)).append('"');
    }
    return value.toString();
  }

  /** Returns where this resource's metadata is (the well-known suffix before its path). */
  public URI metadataUri() {
    return URI.create(resource.getScheme() + "://" + resource.getRawAuthority() + WELL_KNOWN
        + pathOf(resource));
  }

  /**
   * Returns the paths the metadata is served at: the path-suffixed one (RFC 9728 §3.1) and the
   * root one, which older clients try.
   */
  public List<String> metadataPaths() {
    String path = pathOf(resource);
    return path.isEmpty() ? List.of(WELL_KNOWN) : List.of(WELL_KNOWN + path, WELL_KNOWN);
  }

  /** Returns the protected-resource metadata document (RFC 9728 §2). */
  public String metadataJson() {
    ObjectNode doc = McpJson.object();
    doc.put("resource", resource.toString());
    doc.putArray("authorization_servers").add(issuer.toString());
    if (!scopesSupported.isEmpty()) {
      scopesSupported.stream().sorted().forEach(doc.putArray("scopes_supported")::add);
    }
    doc.putArray("bearer_methods_supported").add("header");
    if (resourceName != null) {
      doc.put("resource_name", resourceName);
    }
    return McpJson.standard().write(doc);
  }

  private static String pathOf(URI uri) {
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    return path.equals("/") ? "" : path;
  }

  /** Configures an {@link OAuthResourceServer}. */
  public static final class Builder {
    private final URI issuer;
    private final URI resource;
    private URI jwksUri;
    private String audience;
    private Set<String> algorithms = AccessTokens.DEFAULT_ALGORITHMS;
    private Duration clockSkew = Duration.ofSeconds(60);
    private Duration keyRefreshInterval = Duration.ofSeconds(30);
    private Duration fetchTimeout = Duration.ofSeconds(5);
    private final Set<String> requiredScopes = new LinkedHashSet<>();
    private final Set<String> scopesSupported = new LinkedHashSet<>();
    private String resourceName;
    private URI introspectionEndpoint;
    private String introspectionClientId;
    private String introspectionSecret;
    private Duration introspectionCache = Duration.ofSeconds(60);

    private Builder(URI issuer, URI resource) {
      this.issuer = Objects.requireNonNull(issuer, "issuer");
      this.resource = Objects.requireNonNull(resource, "resource");
      if (!resource.isAbsolute() || resource.getRawFragment() != null) {
        throw new IllegalArgumentException("the resource must be an absolute URI without a "
            + "fragment (RFC 8707): " + resource);
      }
    }

    /** Sets the issuer's key set; by default it is found in the issuer's metadata. */
    public Builder jwksUri(URI value) {
      this.jwksUri = Objects.requireNonNull(value, "jwksUri");
      return this;
    }

    /** Sets the audience tokens must name; by default the resource URI. */
    public Builder audience(String value) {
      this.audience = Objects.requireNonNull(value, "audience");
      return this;
    }

    /**
     * Sets the signature algorithms accepted (JWS names); asymmetric ones only. The default is
     * every RSA, RSA-PSS, ECDSA and EdDSA algorithm.
     */
    public Builder algorithms(String... names) {
      if (names.length == 0) {
        throw new IllegalArgumentException("at least one algorithm");
      }
      this.algorithms = Set.of(names);
      return this;
    }

    /** Sets how far {@code exp} and {@code nbf} may be off this server's clock; default 60 s. */
    public Builder clockSkew(Duration value) {
      if (value.isNegative() || value.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("clockSkew must be between 0 and 10 minutes: "
            + value);
      }
      this.clockSkew = value;
      return this;
    }

    /**
     * Sets how often at most the issuer's keys (and, until found, its metadata) are fetched
     * again because a token names an unknown key; default 30 s.
     */
    public Builder keyRefreshInterval(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("keyRefreshInterval must be positive: " + value);
      }
      this.keyRefreshInterval = value;
      return this;
    }

    /** Sets how long fetching the issuer's metadata or keys may take; default 5 s. */
    public Builder fetchTimeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("fetchTimeout must be positive: " + value);
      }
      this.fetchTimeout = value;
      return this;
    }

    /** Sets scopes every request's token must grant (403 {@code insufficient_scope} else). */
    public Builder requiredScopes(String... scopes) {
      for (String scope : scopes) {
        if (scope.equals(OFFLINE_ACCESS)) {
          // a client asks the authorization server for it; a resource never needs it
          throw new IllegalArgumentException("offline_access is not a scope a resource can "
              + "require; clients ask the authorization server for it");
        }
      }
      requiredScopes.addAll(List.of(scopes));
      return this;
    }

    /**
     * Adds scopes the metadata lists as supported (the required ones always are;
     * {@code offline_access} never is, as the 2026-07-28 revision asks).
     */
    public Builder scopesSupported(String... scopes) {
      scopesSupported.addAll(List.of(scopes));
      return this;
    }

    /**
     * Accepts opaque (non-JWT) access tokens too, asking the authorization server's
     * introspection endpoint (RFC 7662) about each, authenticated as this resource server's own
     * client ({@code client_secret_basic}). An answer counts when it is {@code active}, names
     * this resource in {@code aud}, has not expired and names no other issuer. Without this,
     * an opaque token is refused.
     */
    public Builder introspection(URI endpoint, String clientId, String clientSecret) {
      this.introspectionEndpoint = Objects.requireNonNull(endpoint, "endpoint");
      this.introspectionClientId = Objects.requireNonNull(clientId, "clientId");
      this.introspectionSecret = Objects.requireNonNull(clientSecret, "clientSecret");
      return this;
    }

    /**
     * Sets how long an active introspection answer is reused at most (it is never reused past
     * the token's {@code exp}); default 60 s. Shorter means a revoked token stops working
     * sooner, at the price of more introspection requests.
     */
    public Builder introspectionCache(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("introspectionCache must not be negative: " + value);
      }
      this.introspectionCache = value;
      return this;
    }

    /** Sets the human-readable name the metadata gives this resource. */
    public Builder resourceName(String value) {
      this.resourceName = Objects.requireNonNull(value, "resourceName");
      return this;
    }

    /**
     * Builds it.
     *
     * @throws IllegalArgumentException for an unsafe URL or a symmetric algorithm
     */
    public OAuthResourceServer build() {
      return new OAuthResourceServer(this);
    }
  }

  /** For tests and logs: never the token, only what the server is configured with. */
  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>();
    shown.put("issuer", issuer);
    shown.put("resource", resource);
    shown.put("requiredScopes", requiredScopes);
    return "OAuthResourceServer" + shown;
  }
}
