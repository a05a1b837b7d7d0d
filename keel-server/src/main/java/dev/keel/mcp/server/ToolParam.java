package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Describes a parameter of an {@link McpTool} method, or a component of a record it takes.
 *
 * <pre>{@code
 * @McpTool(description = "Searches the catalogue")
 * List<Item> search(@ToolParam(description = "what to look for") String query,
 *     @ToolParam(description = "how many", defaultValue = "10") int limit) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
public @interface ToolParam {

  /** The argument name; the parameter name when empty. */
  String name() default "";

  /** What the argument means, for the model. */
  String description() default "";

  /**
   * Whether the argument must be given; primitives without a {@link #defaultValue()} are always
   * required.
   */
  boolean required() default true;

  /**
   * The value used when the argument is not given, shown to the model as the schema's
   * {@code default}; an argument with a default is optional. It is the value as plain text for a
   * string or an enum ({@code "metric"}), JSON for anything else ({@code "10"}, {@code "true"},
   * {@code "[\"a\"]"}), and must fit the parameter's type, or registration fails. Empty means
   * none (as for Jackson's {@code @JsonProperty(defaultValue)}).
   */
  String defaultValue() default "";
}
