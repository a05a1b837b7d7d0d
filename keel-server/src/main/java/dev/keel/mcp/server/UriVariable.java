package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the URI template variable a parameter of an {@link McpResource} method (or the value an
 * {@link McpCompletion} completes) is bound to, when it differs from the parameter's name or the
 * class is compiled without {@code -parameters}.
 *
 * <pre>{@code
 * @McpResource(uri = "tables://{table_name}")
 * String table(@UriVariable("table_name") String table) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface UriVariable {

  /** The variable's name in the URI template. */
  String value();
}
