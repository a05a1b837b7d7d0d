package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.FingerprintResolver;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a request runs as: the authenticator's answer, with the operator's fingerprint resolver
 * winning over its fingerprint. A refusal is the one fixed 401, whatever the reason; nothing the
 * authenticator throws or says reaches the peer.
 */
final class Authentication {

  private static final Logger LOG = LoggerFactory.getLogger(Authentication.class);

  private final Authenticator authenticator;
  private final FingerprintResolver resolver;

  /** Creates it; {@code resolver} may be null. */
  Authentication(Authenticator authenticator, FingerprintResolver resolver) {
    this.authenticator = authenticator;
    this.resolver = resolver;
  }

  /** Returns the principal, or answers 401 and returns empty. */
  Optional<Principal> authenticate(HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    Optional<Principal> principal;
    try {
      principal = authenticator.authenticate(req);
    } catch (RuntimeException e) {
      LOG.warn("authenticator failed; refusing the request", e);
      principal = Optional.empty();
    }
    if (principal == null || principal.isEmpty()) {
      // A refused request never has its body read (issue 14): the connection closes after the
      // 401 rather than carry or wait for bytes nobody will read.
      BodyRead.closeIfBodyUnread(req, resp);
      HttpErrors.refused(resp, refusalOf(req));
      return Optional.empty();
    }
    return Optional.of(resolveFingerprint(req, principal.get()));
  }

  /** Answers a call whose scopes the principal lacks with 403; the handler never runs. */
  void refuseScopes(HttpServletRequest req, HttpServletResponse resp, java.util.Set<String> missing)
      throws IOException {
    Authenticator.Refusal refusal;
    try {
      refusal = authenticator.insufficientScope(req, missing);
    } catch (RuntimeException e) {
      LOG.warn("authenticator failed to describe a scope refusal", e);
      refusal = new Authenticator.Refusal(403, "Bearer error=\"insufficient_scope\"");
    }
    HttpErrors.refused(resp, refusal == null
        ? new Authenticator.Refusal(403, "Bearer error=\"insufficient_scope\"") : refusal);
  }

  private Authenticator.Refusal refusalOf(HttpServletRequest req) {
    try {
      Authenticator.Refusal refusal = authenticator.refusal(req);
      return refusal == null ? Authenticator.Refusal.UNAUTHORIZED : refusal;
    } catch (RuntimeException e) {
      LOG.warn("authenticator failed to say why it refused; answering 401", e);
      return Authenticator.Refusal.UNAUTHORIZED;
    }
  }

  private Principal resolveFingerprint(HttpServletRequest req, Principal principal) {
    if (resolver == null) {
      return principal;
    }
    String resolved = resolver.resolve(req, principal);
    if (resolved == null || resolved.isBlank()) {
      return principal;
    }
    return new Principal(principal.id(), "op:" + Fingerprints.sha256Prefix(resolved),
        principal.claims(), principal.scopes());
  }
}
