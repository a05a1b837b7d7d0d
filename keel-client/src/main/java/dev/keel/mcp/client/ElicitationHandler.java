package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;

/**
 * Answers a server's question to the user. Registering one declares the {@code elicitation}
 * capability (form mode, and URL mode when {@link #supportsUrlMode()}). It may block while the
 * user answers; it runs on a client thread, never on the thread that reads the server.
 */
@FunctionalInterface
public interface ElicitationHandler {

  /** Returns the user's answer. An exception tells the server only that the handler failed. */
  ElicitResult elicit(ElicitRequest request) throws Exception;

  /** Returns true when this handler can send the user to a URL (URL-mode elicitation). */
  default boolean supportsUrlMode() {
    return false;
  }
}
