package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a prompt, for {@link McpServer.Builder#annotated(Object)}.
 *
 * <p>Each parameter is an argument of the prompt, named by {@link PromptArg#name()} or, when
 * compiled with {@code -parameters}, by the source; it is a {@code String}, a primitive or its
 * box, an enum, or an {@code Optional} of one of those. An argument is required unless it is an
 * {@code Optional}, has {@link PromptArg#required()} false, or has a
 * {@link PromptArg#defaultValue()}; a missing required argument is refused with {@code -32602}
 * before the method runs. A parameter of type {@link RequestContext} receives the context.
 *
 * <p>The return value becomes the prompt: a {@code String} as one user message, a
 * {@code PromptMessage} or a {@code List<PromptMessage>} as those messages (with the
 * annotation's description), a {@code GetPromptResult} as is.
 *
 * <pre>{@code
 * final class Prompts {
 *   @McpPrompt(description = "Reviews a piece of code")
 *   String review(@PromptArg(description = "the code") String code,
 *       @PromptArg(description = "how strict", defaultValue = "normal") String tone) {
 *     return "Review this code, " + tone + " tone:\n" + code;
 *   }
 * }
 * McpServer server = McpServer.builder().annotated(new Prompts()).build();
 * }</pre>
 *
 * <p>The method runs on a handler thread and may block; what it throws is logged with an error id
 * and the client gets {@code -32603} with that id (a thrown {@code McpException} goes to the
 * client as it is).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpPrompt {

  /** The prompt name; the method name when empty. */
  String name() default "";

  /** A display title. */
  String title() default "";

  /** What the prompt is for. */
  String description() default "";

  /** The OAuth scopes a caller's token must grant to see and get it. */
  String[] scopes() default {};
}
