package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a tool, for {@link McpServer.Builder#annotated(Object)}.
 *
 * <p>The input schema is generated from the parameters: {@code String}, the primitive types and
 * their boxes, enums, lists, arrays and string-keyed maps of those, records and JavaBeans (as
 * nested objects, described by their Jackson annotations), and {@code Optional}s of any of them
 * for arguments that may be left out. A parameter of type {@link RequestContext} receives the
 * context instead. Parameter names come from {@link ToolParam#name()} or, when compiled with
 * {@code -parameters}, from the source; {@link ToolParam#defaultValue()} gives a default. The
 * return value becomes the result: a {@code CallToolResult} as is, a {@code String} as text, a
 * record or JavaBean as structured content with its schema as the output schema, anything else
 * as structured content wrapped in {@code {"result": ...}}.
 *
 * <p>The method runs on a handler thread and may block; cancellation trips its token and
 * interrupts it. A thrown {@code McpException} goes to the client as a JSON-RPC error; anything
 * else is logged with its stack trace under an error id, and the model sees only
 * {@code Tool name failed (error id 7f3a9c21)}.
 *
 * <pre>{@code
 * final class Weather {
 *   @McpTool(description = "Current temperature of a city")
 *   double temperature(@ToolParam(description = "city name") String city) {
 *     return lookup(city);
 *   }
 * }
 * McpServer server = McpServer.builder().annotated(new Weather()).build();
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpTool {

  /** The tool name; the method name when empty. */
  String name() default "";

  /** A display title. */
  String title() default "";

  /** What the tool does, for the model. */
  String description() default "";

  /** Declares the tool read-only (and idempotent). */
  boolean readOnly() default false;

  /** Declares that the tool may destroy data. */
  boolean destructive() default false;

  /** The timeout in seconds; 0 for the server's default. */
  long timeoutSeconds() default 0;

  /** Whether cancellation interrupts the method's thread (see {@link ToolOptions}). */
  boolean interruptOnCancel() default true;

  /** Whether each call needs the user's approval first (see {@link ToolOptions}). */
  boolean requiresApproval() default false;

  /**
   * Whether the method never blocks, so it runs without a thread of its own (see
   * {@link ToolOptions#withNonBlocking()}).
   */
  boolean nonBlocking() default false;

  /**
   * The OAuth scopes a caller's token must grant to call or see the tool (see
   * {@link ToolOptions#withRequiredScopes}).
   */
  String[] scopes() default {};
}
