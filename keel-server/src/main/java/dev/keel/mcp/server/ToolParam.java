package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Describes a parameter of an {@link McpTool} method. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
public @interface ToolParam {

  /** The argument name; the parameter name when empty. */
  String name() default "";

  /** What the argument means, for the model. */
  String description() default "";

  /** Whether the argument must be given; primitives are always required. */
  boolean required() default true;
}
