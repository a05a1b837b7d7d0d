package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;

/**
 * {@link Authenticator#local()}: every request runs as {@link Principal#local()}. A named class,
 * not a lambda, so that {@link SelectorLane} can tell it apart from an operator's authenticator,
 * which may block and needs the servlet request.
 */
public final class LocalAuthenticator implements Authenticator {

  /** The one instance. */
  public static final LocalAuthenticator INSTANCE = new LocalAuthenticator();

  private LocalAuthenticator() {}

  @Override
  public Optional<Principal> authenticate(HttpServletRequest request) {
    return Optional.of(Principal.local());
  }
}
