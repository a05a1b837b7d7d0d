package dev.keel.mcp.http.internal.oauth;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.URI;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Validates a JWT access token (OAuth 2.1 §5.2, RFC 9068): a signature by one of the issuer's
 * keys with an allowed asymmetric algorithm (never {@code none}, never an HMAC, so a public key
 * can never be used as a shared secret), {@code iss} equal to the issuer, {@code aud} naming this
 * resource (RFC 8707), {@code exp} and {@code nbf} within the clock skew, and a subject.
 */
final class AccessTokenVerifier {

  /** What a valid token says. */
  record Verified(String issuer, String subject, Set<String> scopes, Map<String, Object> claims) {}

  /** A token that is not valid here; the reason is for the log only, never for the peer. */
  static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejected(String reason) {
      super(reason, null, false, false);
    }
  }

  private final Set<JWSAlgorithm> algorithms;
  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

  AccessTokenVerifier(URI issuer, String audience, Set<JWSAlgorithm> algorithms, Duration skew,
      Jwks jwks) {
    this.algorithms = Set.copyOf(algorithms);
    processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT,
        new JOSEObjectType("at+jwt"), null));
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(this.algorithms,
        (selector, context) -> jwks.select(selector)));
    DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(audience,
        new JWTClaimsSet.Builder().issuer(issuer.toString()).build(), Set.of("exp"));
    claims.setMaxClockSkew((int) Math.min(Integer.MAX_VALUE, skew.toSeconds()));
    processor.setJWTClaimsSetVerifier(claims);
  }

  /**
   * Returns what the token says.
   *
   * @throws Rejected when it is not a valid access token for this resource
   */
  Verified verify(String token) {
    JWT jwt;
    try {
      jwt = JWTParser.parse(token);
    } catch (ParseException e) {
      throw new Rejected("not a JWT");
    }
    if (!(jwt instanceof SignedJWT signed)) {
      throw new Rejected("not a signed JWT (alg none, or encrypted)");
    }
    JWSAlgorithm alg = signed.getHeader().getAlgorithm();
    if (!algorithms.contains(alg)) {
      throw new Rejected("algorithm " + alg + " is not allowed");
    }
    JWTClaimsSet claims;
    try {
      claims = processor.process(signed, null);
    } catch (BadJOSEException | com.nimbusds.jose.JOSEException e) {
      throw new Rejected(e.getMessage());
    }
    String subject = firstString(claims, "sub", "client_id", "azp");
    if (subject == null) {
      throw new Rejected("no subject");
    }
    return new Verified(claims.getIssuer(), subject, scopesOf(claims), plain(claims));
  }

  private static String firstString(JWTClaimsSet claims, String... names) {
    for (String name : names) {
      Object value = claims.getClaim(name);
      if (value instanceof String s && !s.isBlank()) {
        return s;
      }
    }
    return null;
  }

  /** {@code scope} (RFC 9068, space-separated) or {@code scp} (a list or a string). */
  static Set<String> scopesOf(JWTClaimsSet claims) {
    Set<String> scopes = new LinkedHashSet<>();
    for (String name : List.of("scope", "scp")) {
      Object value = claims.getClaim(name);
      if (value instanceof String s) {
        for (String one : s.trim().split("\\s+")) {
          if (!one.isEmpty()) {
            scopes.add(one);
          }
        }
      } else if (value instanceof List<?> list) {
        list.stream().filter(String.class::isInstance).map(String.class::cast)
            .forEach(scopes::add);
      }
    }
    return Set.copyOf(scopes);
  }

  /** The claims as plain values (dates as epoch seconds), without nulls. */
  private static Map<String, Object> plain(JWTClaimsSet claims) {
    Map<String, Object> out = new LinkedHashMap<>();
    claims.getClaims().forEach((name, value) -> {
      if (value instanceof Date d) {
        out.put(name, d.getTime() / 1000);
      } else if (value instanceof List<?> list) {
        out.put(name, List.copyOf(new ArrayList<>(list.stream()
            .filter(java.util.Objects::nonNull).toList())));
      } else if (value != null) {
        out.put(name, value);
      }
    });
    return out;
  }
}
