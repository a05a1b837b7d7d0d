package dev.keel.mcp.core.schema;

import java.util.Objects;

/**
 * One message of a prompt.
 *
 * @param role who speaks
 * @param content what is said
 */
public record PromptMessage(Role role, Content content) {

  /** Checks the required members. */
  public PromptMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
  }

  /** Returns a user message with one text block. */
  public static PromptMessage user(String text) {
    return new PromptMessage(Role.USER, Content.text(text));
  }

  /** Returns a user message with any content. */
  public static PromptMessage user(Content content) {
    return new PromptMessage(Role.USER, content);
  }
}
