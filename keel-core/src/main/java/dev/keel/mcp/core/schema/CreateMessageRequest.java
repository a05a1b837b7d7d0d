package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code sampling/createMessage}: the server asks the client's model for a reply.
 *
 * @param messages the conversation
 * @param modelPreferences model preferences, or null
 * @param systemPrompt a system prompt, or null
 * @param includeContext {@code none}, {@code thisServer} or {@code allServers}, or null
 * @param temperature sampling temperature, or null
 * @param maxTokens the most tokens to generate
 * @param stopSequences stop sequences, or null
 * @param metadata provider-specific metadata, or null
 * @param tools tools the model may use (needs {@code sampling.tools}), or null
 * @param toolChoice {@code {"mode": "auto"|"required"|"none"}}, or null
 * @param meta {@code _meta}, or null
 */
public record CreateMessageRequest(List<SamplingMessage> messages,
    ModelPreferences modelPreferences, String systemPrompt, String includeContext,
    Double temperature, int maxTokens, List<String> stopSequences, ObjectNode metadata,
    List<Tool> tools, ObjectNode toolChoice, @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the lists. */
  public CreateMessageRequest {
    messages = messages == null ? List.of() : List.copyOf(messages);
    stopSequences = stopSequences == null ? null : List.copyOf(stopSequences);
    tools = tools == null ? null : List.copyOf(tools);
  }

  /** Returns a request of one user message. */
  public static CreateMessageRequest of(String userText, int maxTokens) {
    return new CreateMessageRequest(List.of(SamplingMessage.user(userText)), null, null, null,
        null, maxTokens, null, null, null, null, null);
  }
}
