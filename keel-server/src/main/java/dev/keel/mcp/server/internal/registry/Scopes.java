package dev.keel.mcp.server.internal.registry;

import java.util.Collection;
import java.util.Set;

/** The rule for the OAuth scopes a tool, resource, template or prompt requires. */
public final class Scopes {

  private Scopes() {}

  /**
   * Returns an immutable copy of {@code scopes} (none for null), each checked to be one token
   * without spaces or quotes, as it must be to stand in a {@code WWW-Authenticate} challenge.
   *
   * @throws IllegalArgumentException naming the first scope that is not
   */
  public static Set<String> copyOf(Collection<String> scopes) {
    if (scopes == null) {
      return Set.of();
    }
    for (String scope : scopes) {
      if (scope.isBlank() || scope.chars().anyMatch(c -> c <= ' ' || c == '"' || c == '\\')) {
        throw new IllegalArgumentException("a scope is one token without spaces or quotes: '"
            + scope + "'");
      }
    }
    return Set.copyOf(scopes);
  }
}
