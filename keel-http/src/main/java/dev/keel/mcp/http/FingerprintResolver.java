package dev.keel.mcp.http;

import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;

/**
 * An operator's own idea of who owns a session, which wins over the authenticator's: for
 * example a tenant id from a header set by a trusted gateway, or the subject of a token the
 * operator validated. Sessions, cancellations and streams are bound to the fingerprint it
 * derives; two requests with the same resolved value are the same owner.
 */
@FunctionalInterface
public interface FingerprintResolver {

  /**
   * Returns the owner identity of an authenticated request, or null (or blank) to keep the
   * authenticator's fingerprint.
   */
  String resolve(HttpServletRequest request, Principal principal);
}
