package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.ClientAuth;
import dev.keel.mcp.client.internal.OAuthDiscovery;
import dev.keel.mcp.client.internal.Secrets;
import dev.keel.mcp.client.internal.TokenAnswer;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OAuth 2.1 authorization-code flow for a client that acts for a person. Given to
 * {@link StreamableHttpTransport.Builder#oauth(OAuthAuthorizationCode)}, it answers a server's
 * 401 by itself, as the MCP authorization specification orders:
 * <ol>
 *   <li>the server's protected-resource metadata (RFC 9728: the challenge's
 *       {@code resource_metadata}, then the path-suffixed, then the root well-known URI), whose
 *       {@code resource} must be this server; a server with none is a 2025-03-26 server, its own
 *       origin the authorization server, with the default endpoints when it has no metadata;
 *   <li>the authorization server's metadata (RFC 8414, then OpenID Connect), whose
 *       {@code issuer} must be exactly the one it was looked up for;
 *   <li>a client identity for that issuer, in this order: the pre-registered one, a client ID
 *       metadata document URL when the server accepts them, dynamic registration (RFC 7591,
 *       with {@code application_type}); identities are kept per issuer and never shown to
 *       another;
 *   <li>the authorization request with PKCE S256 (refused when the server does not list it),
 *       {@code state}, the {@code resource} (RFC 8707) and the scope: the challenge's, else the
 *       resource's {@code scopes_supported}, else none; with {@code offline_access} only when
 *       the authorization server lists it;
 *   <li>the redirect, through {@link OAuthUserStep}: {@code state} must match and an
 *       {@code iss} (RFC 9207) must equal the issuer by simple string comparison; a server that
 *       advertises {@code iss} must send it;
 *   <li>the token request with the verifier and the same {@code resource}.
 * </ol>
 * A 403 {@code insufficient_scope} re-authorizes with the union of the scopes asked for before
 * and those the challenge names (the transport bounds how often); an expired token is renewed
 * with its refresh token when there is one (a rotated refresh token replaces the old); a server
 * whose authorization server changed gets a new identity from the new one. Tokens and
 * registrations (a pre-registered client's too, so that a later run with only the store can
 * refresh) live in an {@link OAuthTokenStore}; no token, code, verifier or secret is ever
 * logged or put into an exception message.
 *
 * <pre>{@code
 * OAuthAuthorizationCode login = OAuthAuthorizationCode.builder(
 *         OAuthUserStep.loopback(url -> System.out.println("Open " + url), Duration.ofMinutes(5)))
 *     .clientName("My agent")
 *     .build();
 * McpClient client = McpClient.builder(StreamableHttpTransport.builder(url).oauth(login).build())
 *     .connect();
 * }</pre>
 */
public final class OAuthAuthorizationCode {

  private static final Logger LOG = LoggerFactory.getLogger(OAuthAuthorizationCode.class);

  /** What is kept per server: the token, where it came from and what was asked for. */
  private record Grant(String issuer, String clientId, String access, String refresh,
      Instant expires, Set<String> scopes) {

    boolean live() {
      return access != null && Instant.now().isBefore(expires);
    }

    String header() {
      return "Bearer " + access;
    }
  }

  private final OAuthUserStep user;
  private final String clientId;
  private final String clientSecret;
  private final URI clientMetadataUrl;
  private final String clientName;
  private final String applicationType;
  private final Set<String> scopes;
  private final boolean offlineAccess;
  private final OAuthTokenStore store;
  private final OAuthDiscovery discovery;
  private final ReentrantLock lock = new ReentrantLock();
  // read by every request without the lock, written under it
  private final Map<String, Grant> grants = new java.util.concurrent.ConcurrentHashMap<>();

  private OAuthAuthorizationCode(Builder b) {
    this.user = b.user;
    this.clientId = b.clientId;
    this.clientSecret = b.clientSecret;
    this.clientMetadataUrl = b.clientMetadataUrl;
    this.clientName = b.clientName;
    this.applicationType = b.applicationType;
    this.scopes = Set.copyOf(b.scopes);
    this.offlineAccess = b.offlineAccess;
    this.store = b.store;
    this.discovery = new OAuthDiscovery(b.timeout, b.privateNetworks);
  }

  /** Starts a flow whose user-facing step is {@code user}. */
  public static Builder builder(OAuthUserStep user) {
    return new Builder(user);
  }

  /**
   * Returns whether a token for {@code server} is kept, live or renewable with a refresh
   * token: whether requests to it will be authorized without asking the user.
   */
  public boolean authorized(URI server) {
    lock.lock();
    try {
      Grant g = grant(server);
      return g != null && (g.live() || g.refresh() != null);
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the tokens kept for {@code server} (not the client's registration). */
  public void signOut(URI server) {
    lock.lock();
    try {
      forget(server);
    } finally {
      lock.unlock();
    }
  }

  /** The transport's view of this flow. */
  BearerAuthority authority() {
    return new BearerAuthority() {
      @Override
      public String authorization(URI server) {
        Grant g = grant(server);
        return g != null && g.live() ? g.header() : null;
      }

      @Override
      public String challenged(URI server, int status, String challenge, String rejected) {
        return OAuthAuthorizationCode.this.challenged(server, status, challenge, rejected);
      }
    };
  }

  private String challenged(URI server, int status, String challenge, String rejected) {
    lock.lock();
    try {
      Grant current = grant(server);
      if (current != null && current.live() && !current.header().equals(rejected)) {
        return current.header(); // another request already got a new one
      }
      OAuthDiscovery.Found found = discovery.discover(server, challenge);
      boolean sameIssuer = current != null && current.issuer().equals(found.issuer());
      if (status == 401 && sameIssuer && current.refresh() != null) {
        Grant renewed = refresh(server, found, current);
        if (renewed != null) {
          return renewed.header();
        }
      }
      Set<String> wanted = new LinkedHashSet<>(scopes);
      if (current != null) {
        wanted.addAll(current.scopes()); // SEP-2350: re-authorization keeps what was asked
      }
      if (!found.scopes().isEmpty()) {
        wanted.addAll(found.scopes());
      } else if (current == null && found.resourceScopes() != null) {
        wanted.addAll(found.resourceScopes());
      }
      return authorize(server, found, wanted).header();
    } catch (TransportException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new TransportException("cannot get an access token: " + e.getMessage(), 401, e);
    } finally {
      lock.unlock();
    }
  }

  private Grant authorize(URI server, OAuthDiscovery.Found found, Set<String> wanted) {
    OAuthDiscovery.AuthServer as = found.server();
    if (as.authorizationEndpoint() == null) {
      throw new IllegalStateException("the authorization server " + as.issuer()
          + " names no authorization_endpoint");
    }
    if (as.fromMetadata() && (as.codeChallengeMethods() == null
        || !as.codeChallengeMethods().contains("S256"))) {
      throw new IllegalStateException("the authorization server " + as.issuer()
          + " does not support PKCE with S256; refusing to authorize without it");
    }
    Set<String> asked = new LinkedHashSet<>(wanted);
    asked.remove("offline_access");
    Set<String> requested = new LinkedHashSet<>(asked);
    if (offlineAccess && as.scopesSupported() != null
        && as.scopesSupported().contains("offline_access")) {
      requested.add("offline_access");
    }
    URI redirect = user.redirectUri();
    requireRedirect(redirect);
    ClientAuth client = identity(as, redirect);
    String verifier = Secrets.codeVerifier();
    String state = Secrets.random(24);
    StringBuilder query = new StringBuilder("response_type=code")
        .append("&client_id=").append(encode(client.clientId()))
        .append("&redirect_uri=").append(encode(redirect.toString()))
        .append("&state=").append(encode(state))
        .append("&code_challenge=").append(Secrets.s256(verifier))
        .append("&code_challenge_method=S256")
        .append("&resource=").append(encode(found.resource()));
    if (!requested.isEmpty()) {
      query.append("&scope=").append(encode(String.join(" ", requested)));
    }
    String endpoint = as.authorizationEndpoint().toString();
    URI request = URI.create(endpoint + (endpoint.contains("?") ? "&" : "?") + query);
    URI back = user.authorize(request);
    Map<String, String> answer = query(back);
    // The issuer first: an answer (even an error) from another issuer is a mix-up attack, and
    // nothing of it is shown.
    String iss = answer.get("iss");
    if (iss != null && !iss.equals(as.issuer())) {
      throw new IllegalStateException("the redirect names another issuer than "
          + as.issuer() + " (RFC 9207); it was ignored");
    }
    if (iss == null && as.issParameter()) {
      throw new IllegalStateException("the authorization server advertises the iss parameter "
          + "but its redirect has none (RFC 9207)");
    }
    if (!state.equals(answer.get("state"))) {
      throw new IllegalStateException("the redirect's state does not match the request's");
    }
    if (answer.containsKey("error")) {
      throw new IllegalStateException("the authorization server refused: "
          + Text.safe(answer.get("error")));
    }
    String code = answer.get("code");
    if (code == null || code.isEmpty()) {
      throw new IllegalStateException("the redirect carries no authorization code");
    }
    StringBuilder form = new StringBuilder("grant_type=authorization_code")
        .append("&code=").append(encode(code))
        .append("&redirect_uri=").append(encode(redirect.toString()))
        .append("&code_verifier=").append(encode(verifier))
        .append("&resource=").append(encode(found.resource()));
    String basic = client.apply(form, as.issuer());
    TokenAnswer tokens = discovery.requestToken(as.tokenEndpoint(), form.toString(), basic);
    return keep(server, as.issuer(), client.clientId(), tokens, null, asked);
  }

  private Grant refresh(URI server, OAuthDiscovery.Found found, Grant current) {
    OAuthDiscovery.AuthServer as = found.server();
    ClientAuth client = storedIdentity(as, current.clientId());
    if (client == null) {
      return null;
    }
    StringBuilder form = new StringBuilder("grant_type=refresh_token")
        .append("&refresh_token=").append(encode(current.refresh()))
        .append("&resource=").append(encode(found.resource()));
    String basic = client.apply(form, as.issuer());
    try {
      TokenAnswer tokens = discovery.requestToken(as.tokenEndpoint(), form.toString(), basic);
      return keep(server, as.issuer(), client.clientId(), tokens, current.refresh(),
          current.scopes());
    } catch (RuntimeException e) {
      LOG.debug("refreshing the token for {} failed; authorizing again: {}", server,
          Text.safe(e.getMessage()));
      forget(server);
      return null;
    }
  }

  /** Keeps a token; a refresh answer without a new refresh token keeps the old one. */
  private Grant keep(URI server, String issuer, String client, TokenAnswer tokens,
      String previousRefresh, Set<String> asked) {
    String access = tokens.accessToken();
    String refresh = tokens.refreshToken() != null ? tokens.refreshToken() : previousRefresh;
    Grant grant = new Grant(issuer, client, access, refresh, tokens.expires(),
        Set.copyOf(asked));
    grants.put(server.toString(), grant);
    ObjectNode saved = McpJson.object().put("issuer", issuer).put("client_id", client)
        .put("access_token", access).put("expires_at", grant.expires().getEpochSecond());
    if (refresh != null) {
      saved.put("refresh_token", refresh);
    }
    ArrayNode list = saved.putArray("scopes");
    asked.forEach(list::add);
    store.put(tokenKey(server), saved.toString());
    return grant;
  }

  private void forget(URI server) {
    grants.remove(server.toString());
    store.remove(tokenKey(server));
  }

  private Grant grant(URI server) {
    Grant known = grants.get(server.toString());
    if (known != null) {
      return known;
    }
    String saved = store.get(tokenKey(server)).orElse(null);
    if (saved == null) {
      return null;
    }
    try {
      JsonNode j = McpJson.standard().parseObject(saved);
      Set<String> asked = new LinkedHashSet<>();
      j.path("scopes").forEach(n -> asked.add(n.asString()));
      String refresh = j.path("refresh_token").asString(null);
      Grant g = new Grant(j.path("issuer").asString(), j.path("client_id").asString(),
          j.path("access_token").asString(null), refresh,
          Instant.ofEpochSecond(j.path("expires_at").asLong(0)), Set.copyOf(asked));
      grants.put(server.toString(), g);
      return g;
    } catch (RuntimeException e) {
      store.remove(tokenKey(server));
      return null;
    }
  }

  /**
   * The client identity for this issuer, in the specification's order: pre-registered, a
   * client ID metadata document, one registered before with this issuer, a new registration.
   */
  private ClientAuth identity(OAuthDiscovery.AuthServer as, URI redirect) {
    if (clientId != null) {
      // kept with the issuer, so that a later run that knows only the store can refresh
      ObjectNode saved = McpJson.object().put("client_id", clientId);
      if (clientSecret != null) {
        saved.put("client_secret", clientSecret);
      }
      store.put(clientKey(as.issuer()), saved.toString());
      return ClientAuth.choose(clientId, clientSecret, null, as.tokenAuthMethods());
    }
    if (clientMetadataUrl != null && as.clientIdMetadataDocuments()) {
      return ClientAuth.none(clientMetadataUrl.toString());
    }
    ClientAuth registered = storedIdentity(as, null);
    if (registered != null) {
      return registered;
    }
    if (as.registrationEndpoint() == null) {
      throw new IllegalStateException("the authorization server " + as.issuer()
          + " offers no client registration, and no client id is configured for it");
    }
    ObjectNode metadata = McpJson.object().put("client_name", clientName)
        .put("application_type", applicationType);
    metadata.putArray("redirect_uris").add(redirect.toString());
    ArrayNode grantTypes = metadata.putArray("grant_types").add("authorization_code");
    if (offlineAccess) {
      grantTypes.add("refresh_token");
    }
    metadata.putArray("response_types").add("code");
    List<String> methods = as.tokenAuthMethods();
    // A native client cannot keep a secret, and PKCE protects its code: none when allowed.
    String method = methods != null && methods.contains("none") ? "none"
        : methods != null && !methods.contains("client_secret_basic")
            && methods.contains("client_secret_post") ? "client_secret_post"
        : "client_secret_basic";
    metadata.put("token_endpoint_auth_method", method);
    if (clientMetadataUrl != null) {
      metadata.put("client_uri", clientMetadataUrl.toString());
    }
    ObjectNode answer = discovery.register(as.registrationEndpoint(), metadata);
    ObjectNode saved = McpJson.object().put("client_id", answer.path("client_id").asString());
    String secret = answer.path("client_secret").asString(null);
    if (secret != null) {
      saved.put("client_secret", secret);
    }
    String granted = answer.path("token_endpoint_auth_method").asString(method);
    saved.put("token_endpoint_auth_method", granted);
    store.put(clientKey(as.issuer()), saved.toString());
    return ClientAuth.choose(saved.path("client_id").asString(), secret, granted,
        as.tokenAuthMethods());
  }

  /** The identity this client has at {@code as}; with {@code id}, only when it is that one. */
  private ClientAuth storedIdentity(OAuthDiscovery.AuthServer as, String id) {
    if (clientId != null && (id == null || id.equals(clientId))) {
      return ClientAuth.choose(clientId, clientSecret, null, as.tokenAuthMethods());
    }
    if (clientMetadataUrl != null && clientMetadataUrl.toString().equals(id)) {
      return ClientAuth.none(id);
    }
    String saved = store.get(clientKey(as.issuer())).orElse(null);
    if (saved == null) {
      return null;
    }
    JsonNode j = McpJson.standard().parseObject(saved);
    String registered = j.path("client_id").asString("");
    if (registered.isEmpty() || (id != null && !id.equals(registered))) {
      return null;
    }
    return ClientAuth.choose(registered, j.path("client_secret").asString(null),
        j.path("token_endpoint_auth_method").asString(null), as.tokenAuthMethods());
  }

  /** The MCP specification's rule for redirect URIs: loopback, or https. */
  private static void requireRedirect(URI redirect) {
    String scheme = redirect.getScheme() == null ? "" : redirect.getScheme().toLowerCase(
        java.util.Locale.ROOT);
    String host = redirect.getHost() == null ? "" : redirect.getHost();
    boolean loopback = host.equals("localhost") || host.equals("127.0.0.1")
        || host.equals("[::1]") || host.equals("::1");
    if (!(scheme.equals("https") || (scheme.equals("http") && loopback))) {
      throw new IllegalArgumentException("a redirect URI must be https or http to loopback: "
          + redirect);
    }
  }

  private static String tokenKey(URI server) {
    return "tokens " + server;
  }

  private static String clientKey(String issuer) {
    return "client " + issuer;
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq),
          StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1),
          StandardCharsets.UTF_8);
      out.putIfAbsent(name, value);
    }
    return out;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** Configures {@link OAuthAuthorizationCode}. */
  public static final class Builder {
    private final OAuthUserStep user;
    private String clientId;
    private String clientSecret;
    private URI clientMetadataUrl;
    private String clientName = "Keel MCP client";
    private String applicationType = "native";
    private final Set<String> scopes = new LinkedHashSet<>();
    private boolean offlineAccess = true;
    private OAuthTokenStore store = OAuthTokenStore.inMemory();
    private Duration timeout = Duration.ofSeconds(10);
    private boolean privateNetworks;

    private Builder(OAuthUserStep user) {
      this.user = Objects.requireNonNull(user, "user");
    }

    /** Uses a client registered beforehand: a public one (no secret). */
    public Builder clientId(String value) {
      this.clientId = Objects.requireNonNull(value, "clientId");
      return this;
    }

    /** Uses a client registered beforehand, with its secret. */
    public Builder client(String id, String secret) {
      this.clientId = Objects.requireNonNull(id, "clientId");
      this.clientSecret = Objects.requireNonNull(secret, "clientSecret");
      return this;
    }

    /**
     * Uses {@code url}, an https URL where this client's metadata document is served, as its
     * client id at authorization servers that accept client ID metadata documents.
     */
    public Builder clientMetadataUrl(URI url) {
      if (!"https".equalsIgnoreCase(url.getScheme()) || url.getRawPath() == null
          || url.getRawPath().isEmpty() || url.getRawPath().equals("/")) {
        throw new IllegalArgumentException("a client metadata document URL must be https "
            + "with a path: " + url);
      }
      this.clientMetadataUrl = url;
      return this;
    }

    /** Sets the name registered for this client (default "Keel MCP client"). */
    public Builder clientName(String value) {
      this.clientName = Objects.requireNonNull(value, "clientName");
      return this;
    }

    /**
     * Sets the {@code application_type} registered: {@code native} (the default, for a
     * loopback or custom-scheme redirect) or {@code web}.
     */
    public Builder applicationType(String value) {
      if (!value.equals("native") && !value.equals("web")) {
        throw new IllegalArgumentException("application_type is native or web: " + value);
      }
      this.applicationType = value;
      return this;
    }

    /** Adds scopes to ask for, beside those the server names. */
    public Builder scope(String... values) {
      for (String v : values) {
        scopes.addAll(OAuthDiscovery.scopes(v));
      }
      return this;
    }

    /**
     * Whether to ask for a refresh token (default yes): {@code refresh_token} among the
     * registered grant types, and {@code offline_access} when the authorization server lists
     * it.
     */
    public Builder offlineAccess(boolean value) {
      this.offlineAccess = value;
      return this;
    }

    /** Sets where tokens and registrations are kept (default: in memory). */
    public Builder tokenStore(OAuthTokenStore value) {
      this.store = Objects.requireNonNull(value, "tokenStore");
      return this;
    }

    /**
     * Lets metadata name https endpoints on private and link-local addresses too (an
     * authorization server inside the organisation's network). Off by default: a server, or a
     * document it points to, must not make the client reach into the network it runs in.
     */
    public Builder allowPrivateNetworks(boolean value) {
      this.privateNetworks = value;
      return this;
    }

    /** Sets the timeout of each metadata, registration and token request; default 10 s. */
    public Builder timeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /** Builds it. */
    public OAuthAuthorizationCode build() {
      return new OAuthAuthorizationCode(this);
    }
  }
}
