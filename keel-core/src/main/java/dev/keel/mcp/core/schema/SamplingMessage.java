package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A message in a sampling conversation. On the wire {@code content} is one block or, since
 * 2025-11-25, an array; one block is written as an object so older clients read it.
 *
 * @param role who speaks
 * @param content the blocks
 * @param meta {@code _meta}, or null
 */
public record SamplingMessage(Role role,
    @JsonFormat(with = {JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY,
        JsonFormat.Feature.WRITE_SINGLE_ELEM_ARRAYS_UNWRAPPED}) List<Content> content,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members. */
  public SamplingMessage {
    Objects.requireNonNull(role, "role");
    content = content == null ? List.of() : List.copyOf(content);
  }

  /** Returns a user message with one text block. */
  public static SamplingMessage user(String text) {
    return new SamplingMessage(Role.USER, List.of(Content.text(text)), null);
  }
}
