package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** What a completion request completes an argument of: a prompt or a resource template. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = CompletionReference.PromptRef.class, name = "ref/prompt"),
    @JsonSubTypes.Type(value = CompletionReference.ResourceTemplateRef.class,
        name = "ref/resource")
})
public sealed interface CompletionReference {

  /**
   * A prompt, by name.
   *
   * @param name the prompt name
   */
  record PromptRef(String name) implements CompletionReference {}

  /**
   * A resource template, by its URI template.
   *
   * @param uri the URI template
   */
  record ResourceTemplateRef(String uri) implements CompletionReference {}
}
