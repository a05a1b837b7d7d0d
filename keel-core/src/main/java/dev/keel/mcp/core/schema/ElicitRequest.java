package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code elicitation/create}: the server asks the user for input, through a form
 * (a flat object schema of primitive fields) or by sending them to a URL.
 *
 * @param mode {@code "form"}, {@code "url"} or null (form)
 * @param message what to tell the user
 * @param requestedSchema the form schema (form mode), or null
 * @param url where to send the user (URL mode), or null
 * @param elicitationId the id of a URL-mode elicitation (2025-11-25), or null
 * @param meta {@code _meta}, or null
 */
public record ElicitRequest(String mode, String message, ObjectNode requestedSchema, String url,
    String elicitationId, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the message. */
  public ElicitRequest {
    Objects.requireNonNull(message, "message");
  }

  /** Returns a form-mode request. */
  public static ElicitRequest form(String message, ObjectNode requestedSchema) {
    Objects.requireNonNull(requestedSchema, "requestedSchema");
    return new ElicitRequest(null, message, requestedSchema, null, null, null);
  }

  /** Returns a URL-mode request. */
  public static ElicitRequest url(String message, String url, String elicitationId) {
    Objects.requireNonNull(url, "url");
    return new ElicitRequest("url", message, null, url, elicitationId, null);
  }

  /** Returns true for a URL-mode request. */
  @JsonIgnore
  public boolean isUrlMode() {
    return "url".equals(mode);
  }
}
