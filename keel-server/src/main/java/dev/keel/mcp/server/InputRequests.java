package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.ElicitRequest;

/**
 * Several questions for the client at once, each under a key: user input (elicitation), a model
 * reply (sampling), the client's roots. {@link #collect()} returns when every one is answered.
 *
 * <p>In a legacy session each question is a request to the client on this request's stream. In
 * the stateless era they travel together in one {@code input_required} result; the client
 * answers and retries, the handler runs again from the start, and this time {@code collect()}
 * returns the answers. So a handler must do nothing before {@code collect()} that it cannot
 * repeat, and must not catch what {@code collect()} throws to end an attempt (it is an
 * {@link Error}, which ordinary {@code catch (Exception e)} blocks leave alone).
 *
 * <pre>{@code
 * InputAnswers answers = ctx.inputs()
 *     .elicit("user_name", ElicitRequest.form("Your name?", nameSchema))
 *     .sample("greeting", CreateMessageRequest.of("Write a greeting", 50))
 *     .collect();
 * String name = answers.elicitation("user_name").content().get("name").asString();
 * }</pre>
 *
 * <p>Keys must be unique within a request; they are visible to the client. Questions for a
 * capability the client did not declare fail with {@code -32021} before anything is asked.
 */
public interface InputRequests {

  /** Adds a question for the user. */
  InputRequests elicit(String key, ElicitRequest request);

  /** Adds a request for a model reply. */
  InputRequests sample(String key, CreateMessageRequest request);

  /** Adds a request for the client's roots. */
  InputRequests listRoots(String key);

  /**
   * Returns the answers, blocking while the client answers (legacy era), or ending this attempt
   * with the questions (stateless era, first attempt).
   *
   * @throws dev.keel.mcp.core.McpException {@code -32021} for an undeclared capability;
   *     {@code -32602} for an answer of the wrong shape
   */
  InputAnswers collect();
}
