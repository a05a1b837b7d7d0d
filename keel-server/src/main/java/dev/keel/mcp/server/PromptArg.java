package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Describes a parameter of an {@link McpPrompt} method: an argument of the prompt. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface PromptArg {

  /** The argument name; the parameter name when empty. */
  String name() default "";

  /** A display title. */
  String title() default "";

  /** What the argument means. */
  String description() default "";

  /** Whether the argument must be given. */
  boolean required() default true;

  /**
   * The value used when the argument is not given, in the argument's own text form
   * ({@code "10"}, {@code "HIGH"}); an argument with a default is optional. Empty means none.
   */
  String defaultValue() default "";
}
