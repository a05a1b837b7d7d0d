package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The speaker of a message in a prompt or a sampling conversation. */
public enum Role {
  /** The human side. */
  @JsonProperty("user") USER,
  /** The model side. */
  @JsonProperty("assistant") ASSISTANT
}
