package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as the completion of one argument of a prompt, or of one variable of a resource
 * template, for {@link McpServer.Builder#annotated(Object)}.
 *
 * <p>Name exactly one of {@link #prompt()} (the prompt's name) and {@link #resource()} (the
 * template's URI template, as registered), and the {@link #argument()}; both must be registered
 * with the same server (by any means), or {@code build()} fails. The parameters may be a
 * {@code String} (what the user typed so far), a {@code Map<String, String>} (the arguments
 * already chosen), the {@code CompleteRequest} itself and the {@link RequestContext}, each at most
 * once. The method returns a {@code Completion}, or a {@code List<String>} of which the first 100
 * are sent (with the total and whether there are more).
 *
 * <pre>{@code
 * @McpCompletion(prompt = "review", argument = "tone")
 * List<String> tones(String prefix) {
 *   return Stream.of("gentle", "normal", "harsh").filter(t -> t.startsWith(prefix)).toList();
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpCompletion {

  /** The name of the prompt whose argument this completes; empty for a resource template. */
  String prompt() default "";

  /** The URI template whose variable this completes; empty for a prompt. */
  String resource() default "";

  /** The argument, or the template variable, this completes. */
  String argument();
}
