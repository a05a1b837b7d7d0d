package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The user's answer to an elicitation.
 *
 * @param action what the user did
 * @param content the form values (form mode, on accept), or null
 * @param meta {@code _meta}, or null
 */
public record ElicitResult(Action action, ObjectNode content,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the action. */
  public ElicitResult {
    Objects.requireNonNull(action, "action");
  }

  /** Returns true when the user accepted. */
  public boolean accepted() {
    return action == Action.ACCEPT;
  }

  /** What the user did with an elicitation. */
  public enum Action {
    /** Submitted the form or completed the URL flow. */
    @JsonProperty("accept") ACCEPT,
    /** Explicitly declined. */
    @JsonProperty("decline") DECLINE,
    /** Dismissed without choosing. */
    @JsonProperty("cancel") CANCEL
  }
}
