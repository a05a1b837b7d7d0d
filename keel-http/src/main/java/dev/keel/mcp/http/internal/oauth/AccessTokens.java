package dev.keel.mcp.http.internal.oauth;

import com.nimbusds.jose.JWSAlgorithm;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Access tokens of one issuer for one resource. A JWT is validated against the issuer's keys
 * (found in its metadata on first use, so a server starts while its authorization server is
 * still down); any other token is an opaque one, asked about at the introspection endpoint when
 * one is configured and refused otherwise. What {@code OAuthResourceServer} is built on.
 */
public final class AccessTokens {

  private static final Logger LOG = LoggerFactory.getLogger(AccessTokens.class);

  /** What a valid token says. */
  public record Token(String issuer, String subject, Set<String> scopes,
      Map<String, Object> claims) {}

  /** The algorithms allowed unless configured otherwise: asymmetric only. */
  public static final Set<String> DEFAULT_ALGORITHMS = Set.of("RS256", "RS384", "RS512",
      "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519");

  private final URI issuer;
  private final Fetcher fetcher;
  private final Duration minRefresh;
  private final ReentrantLock lock = new ReentrantLock();
  private final String audience;
  private final Set<JWSAlgorithm> algorithms;
  private final Duration skew;
  private volatile URI jwksUri;
  private volatile AccessTokenVerifier verifier;
  private volatile Instant lastDiscovery = Instant.MIN;
  private volatile Introspection introspection;

  /**
   * Creates it.
   *
   * @param jwksUri the issuer's key set, or null to find it in the issuer's metadata
   * @throws IllegalArgumentException for an algorithm that is not asymmetric, or an unsafe URL
   */
  public AccessTokens(URI issuer, URI jwksUri, String audience, Set<String> algorithms,
      Duration skew, Duration minRefresh, Duration timeout) {
    Fetcher.requireSafe(issuer);
    if (jwksUri != null) {
      Fetcher.requireSafe(jwksUri);
    }
    this.issuer = issuer;
    this.jwksUri = jwksUri;
    this.audience = audience;
    this.algorithms = algorithms.stream().map(AccessTokens::asymmetric).collect(Collectors.toSet());
    this.skew = skew;
    this.minRefresh = minRefresh;
    this.fetcher = new Fetcher(timeout);
  }

  private static JWSAlgorithm asymmetric(String name) {
    JWSAlgorithm alg = JWSAlgorithm.parse(name);
    if (!JWSAlgorithm.Family.RSA.contains(alg) && !JWSAlgorithm.Family.EC.contains(alg)
        && !JWSAlgorithm.Family.ED.contains(alg)) {
      throw new IllegalArgumentException("only asymmetric signature algorithms may verify "
          + "access tokens (an HMAC or none never): " + name);
    }
    return alg;
  }

  /**
   * Sends opaque tokens to {@code endpoint} (RFC 7662) with this resource server's client
   * credentials; active answers are cached no longer than the token lives nor {@code maxCache}.
   */
  public void introspectWith(URI endpoint, String clientId, String clientSecret,
      Duration maxCache) {
    this.introspection = new Introspection(endpoint, clientId, clientSecret, issuer, audience,
        skew, maxCache, fetcher);
  }

  /** Returns what the token says, or null when it is not a valid token here. */
  public Token verify(String token) {
    if (!looksLikeJwt(token)) {
      Introspection opaque = introspection;
      return opaque == null ? null : opaque.verify(token);
    }
    AccessTokenVerifier v = verifier();
    if (v == null) {
      return null;
    }
    try {
      AccessTokenVerifier.Verified ok = v.verify(token);
      return new Token(ok.issuer(), ok.subject(), ok.scopes(), ok.claims());
    } catch (AccessTokenVerifier.Rejected e) {
      LOG.debug("refused an access token: {}", e.getMessage());
      return null;
    }
  }

  /** Three (JWS) or five (JWE) dot-separated parts of base64url: the shapes of a JWT. */
  static boolean looksLikeJwt(String token) {
    int dots = 0;
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c == '.') {
        dots++;
      } else if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '_') {
        return false;
      }
    }
    return dots == 2 || dots == 4;
  }

  private AccessTokenVerifier verifier() {
    AccessTokenVerifier v = verifier;
    if (v != null) {
      return v;
    }
    lock.lock();
    try {
      if (verifier != null) {
        return verifier;
      }
      Instant now = Instant.now();
      if (jwksUri == null) {
        if (now.isBefore(lastDiscovery.plus(minRefresh))) {
          return null;
        }
        lastDiscovery = now;
        try {
          jwksUri = IssuerMetadata.jwksUri(issuer, fetcher);
        } catch (RuntimeException e) {
          LOG.warn("{}", e.getMessage());
          return null;
        }
      }
      Jwks keys = new Jwks(jwksUri, fetcher, minRefresh, Clock.systemUTC());
      verifier = new AccessTokenVerifier(issuer, audience, algorithms, skew, keys);
      return verifier;
    } finally {
      lock.unlock();
    }
  }
}
