package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;

/**
 * Answers a server's request for a model reply. Registering one declares the {@code sampling}
 * capability. It may block; it runs on a client thread.
 */
@FunctionalInterface
public interface SamplingHandler {

  /** Returns the model's reply. An exception tells the server only that the handler failed. */
  CreateMessageResult sample(CreateMessageRequest request) throws Exception;
}
