package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.ClientAuth;
import dev.keel.mcp.client.internal.OAuthDiscovery;
import dev.keel.mcp.client.internal.TokenAnswer;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * OAuth client credentials (RFC 6749 §4.4) for a client that acts on its own behalf, such as a
 * service or a CI job. Given to {@link StreamableHttpTransport.Builder#oauth}, it answers the
 * server's 401 (or 403 {@code insufficient_scope}) by itself: it finds the server's
 * protected-resource metadata (RFC 9728: the challenge's {@code resource_metadata}, else the
 * well-known URIs), checks that it is about this server, finds the authorization server's token
 * endpoint in its metadata (the issuer must match), requests a token for this resource
 * (RFC 8707 {@code resource}) with the scopes the challenge names and those configured, and sends
 * the request again once with it. A token is reused until it expires.
 *
 * <p>Every URL fetched because a server or a document named it must be https to a public
 * address, or loopback; redirects are never followed. The secret is sent only to the token
 * endpoint and never appears in a message.
 *
 * <pre>{@code
 * McpClient client = McpClient.builder(StreamableHttpTransport.builder(url)
 *     .oauth(OAuthClientCredentials.builder("ci-job", secret).scope("mcp:tools").build())
 *     .build()).connect();
 * }</pre>
 */
public final class OAuthClientCredentials {

  /** How the client authenticates at the token endpoint. */
  public enum AuthMethod {
    /** HTTP Basic ({@code client_secret_basic}), the default. */
    CLIENT_SECRET_BASIC,
    /** In the form ({@code client_secret_post}). */
    CLIENT_SECRET_POST
  }


  private final ClientAuth client;
  private final Set<String> scopes;
  private final OAuthDiscovery discovery;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile TokenAnswer token;

  private OAuthClientCredentials(Builder b) {
    this.client = b.keyPem != null
        ? ClientAuth.privateKeyJwt(b.clientId, b.keyPem, b.algorithm)
        : ClientAuth.secret(b.clientId, b.clientSecret, b.method == AuthMethod.CLIENT_SECRET_POST
            ? ClientAuth.Method.CLIENT_SECRET_POST : ClientAuth.Method.CLIENT_SECRET_BASIC);
    this.scopes = Set.copyOf(b.scopes);
    this.discovery = new OAuthDiscovery(b.timeout, b.privateNetworks);
  }

  /** Starts credentials for the client registered as {@code clientId}, with its secret. */
  public static Builder builder(String clientId, String clientSecret) {
    return new Builder(clientId, Objects.requireNonNull(clientSecret, "clientSecret"), null,
        null);
  }

  /**
   * Starts credentials for the client registered as {@code clientId} with a public key: it
   * authenticates with {@code private_key_jwt} (RFC 7523), an assertion signed with
   * {@code pkcs8Pem} (a PEM {@code -----BEGIN PRIVATE KEY-----}) by {@code algorithm}
   * (ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384 or PS512).
   *
   * @throws IllegalArgumentException when the key cannot be read for that algorithm
   */
  public static Builder privateKeyJwt(String clientId, String pkcs8Pem, String algorithm) {
    Builder b = new Builder(clientId, null, Objects.requireNonNull(pkcs8Pem, "pkcs8Pem"),
        Objects.requireNonNull(algorithm, "algorithm"));
    ClientAuth.privateKeyJwt(clientId, pkcs8Pem, algorithm); // fail here, not at the first 401
    return b;
  }

  /** The transport's view of these credentials. */
  BearerAuthority authority() {
    return new BearerAuthority() {
      @Override
      public String authorization(URI server) {
        return OAuthClientCredentials.this.authorization();
      }

      @Override
      public String challenged(URI server, int status, String challenge, String rejected) {
        return OAuthClientCredentials.this.challenged(server, challenge, rejected);
      }
    };
  }

  /** Returns the header value to send, or null before the first token. */
  String authorization() {
    TokenAnswer t = token;
    if (t == null || !t.live()) {
      return null;
    }
    return "Bearer " + t.accessToken();
  }

  /**
   * Gets a new token after the server refused {@code rejected} with {@code challenge}.
   *
   * @return the header value to send again with, or null when no token could be had (the
   *     refusal then stands)
   */
  String challenged(URI server, String challenge, String rejected) {
    lock.lock();
    try {
      String current = authorization();
      if (current != null && !current.equals(rejected)) {
        return current; // another request already got a new one
      }
      OAuthDiscovery.Found found = discovery.discover(server, challenge);
      Set<String> wanted = new LinkedHashSet<>(scopes);
      wanted.addAll(found.scopes());
      StringBuilder form = new StringBuilder("grant_type=client_credentials&resource=")
          .append(encode(found.resource()));
      if (!wanted.isEmpty()) {
        form.append("&scope=").append(encode(String.join(" ", wanted)));
      }
      String basic = client.apply(form, found.issuer());
      token = discovery.requestToken(found.tokenEndpoint(), form.toString(), basic);
      return "Bearer " + token.accessToken();
    } catch (RuntimeException e) {
      throw new TransportException("cannot get an access token: " + e.getMessage(), 401, e);
    } finally {
      lock.unlock();
    }
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** Configures {@link OAuthClientCredentials}. */
  public static final class Builder {
    private final String clientId;
    private final String clientSecret;
    private final String keyPem;
    private final String algorithm;
    private final Set<String> scopes = new LinkedHashSet<>();
    private AuthMethod method = AuthMethod.CLIENT_SECRET_BASIC;
    private Duration timeout = Duration.ofSeconds(10);
    private boolean privateNetworks;

    private Builder(String clientId, String clientSecret, String keyPem, String algorithm) {
      this.clientId = Objects.requireNonNull(clientId, "clientId");
      this.clientSecret = clientSecret;
      this.keyPem = keyPem;
      this.algorithm = algorithm;
    }

    /** Adds scopes to ask for, beside those a challenge names. */
    public Builder scope(String... values) {
      scopes.addAll(Set.of(values));
      return this;
    }

    /**
     * Sets how a client with a secret authenticates at the token endpoint (a client with a key
     * always uses {@code private_key_jwt}).
     */
    public Builder authMethod(AuthMethod value) {
      this.method = Objects.requireNonNull(value, "authMethod");
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

    /** Sets the timeout of each metadata and token request; default 10 s. */
    public Builder timeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /** Builds them. */
    public OAuthClientCredentials build() {
      return new OAuthClientCredentials(this);
    }
  }
}
