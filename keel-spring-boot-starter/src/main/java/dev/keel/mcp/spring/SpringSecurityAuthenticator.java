package dev.keel.mcp.spring;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * Keel's {@link Authenticator} on top of Spring Security: a request Spring Security
 * authenticated runs as that {@link Authentication}; any other goes to {@code fallback}.
 *
 * <p>It runs on the container thread inside Spring Security's filter chain (Keel authenticates
 * before the request goes async), where the {@code SecurityContextHolder} holds the request's
 * context. For an OAuth access token (Spring's resource server, JWT or introspection) the
 * principal is the token's subject, its fingerprint is derived from issuer and subject exactly
 * as Keel's own {@code OAuthResourceServer} derives it, so a user owns the same sessions and
 * tasks whichever of the two checked the token, its claims are the token's, and its scopes are
 * the {@code SCOPE_} authorities. Anything else (a form login, HTTP Basic, a pre-authenticated
 * user) runs as its name, not scope-based.
 */
final class SpringSecurityAuthenticator implements Authenticator {

  private static final boolean OAUTH = ClassUtils.isPresent(
      "org.springframework.security.oauth2.core.ClaimAccessor",
      SpringSecurityAuthenticator.class.getClassLoader());

  private final Authenticator fallback;

  SpringSecurityAuthenticator(Authenticator fallback) {
    this.fallback = fallback;
  }

  @Override
  public Optional<Principal> authenticate(HttpServletRequest request) {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth == null || !auth.isAuthenticated() || auth instanceof AnonymousAuthenticationToken) {
      return fallback.authenticate(request);
    }
    Map<String, Object> claims = OAUTH ? OAuthClaims.of(auth) : null;
    if (claims != null && claims.get("sub") != null) {
      String subject = claims.get("sub").toString();
      Object issuer = claims.get("iss");
      return Optional.of(new Principal(subject, "oauth:" + sha256Prefix(
          (issuer == null ? "" : issuer.toString()) + "\n" + subject), claims, scopes(auth)));
    }
    String name = auth.getName();
    if (name == null || name.isBlank()) {
      return fallback.authenticate(request);
    }
    return Optional.of(new Principal(name, "spring:" + sha256Prefix(name)));
  }

  @Override
  public Refusal refusal(HttpServletRequest request) {
    return fallback.refusal(request);
  }

  @Override
  public Refusal insufficientScope(HttpServletRequest request, Set<String> missing) {
    return fallback.insufficientScope(request, missing);
  }

  private static Set<String> scopes(Authentication auth) {
    Set<String> scopes = new LinkedHashSet<>();
    for (GrantedAuthority authority : auth.getAuthorities()) {
      String a = authority.getAuthority();
      if (a != null && a.startsWith("SCOPE_")) {
        scopes.add(a.substring("SCOPE_".length()));
      }
    }
    return scopes;
  }

  static String sha256Prefix(String value) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(value.getBytes(StandardCharsets.UTF_8)))
          .substring(0, 32);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Loaded only when Spring Security's OAuth 2.0 core is on the class path. */
  private static final class OAuthClaims {

    /** The token's claims when {@code auth} is an OAuth token's, else null. */
    static Map<String, Object> of(Authentication auth) {
      Object principal = auth.getPrincipal();
      Map<String, Object> claims = null;
      if (principal instanceof org.springframework.security.oauth2.core.ClaimAccessor c) {
        claims = c.getClaims();
      } else if (principal
          instanceof org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal p) {
        claims = p.getAttributes();
      }
      if (claims == null) {
        return null;
      }
      // Principal keeps an immutable copy, which takes no null values.
      Map<String, Object> copy = new java.util.LinkedHashMap<>();
      claims.forEach((k, v) -> {
        if (k != null && v != null) {
          copy.put(k, v);
        }
      });
      return copy;
    }
  }
}
