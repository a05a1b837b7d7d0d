package dev.keel.mcp.server;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a resource, or as a resource template when its URI has {@code {name}}
 * variables, for {@link McpServer.Builder#annotated(Object)}.
 *
 * <p>A template's variables (RFC 6570 level 1, as {@link McpServer.Builder#resourceTemplate}
 * takes) are bound to the parameters of the same name ({@link UriVariable} renames one), each a
 * {@code String}, a primitive or its box, or an enum; a value that does not convert means the URI
 * names nothing, and the client gets "resource not found". Every variable needs a parameter and
 * every parameter a variable, except one of type {@link RequestContext}, which receives the
 * context. A resource with a fixed URI takes only the context.
 *
 * <p>The return value becomes the contents: a {@code String} as text ({@code text/plain} unless
 * {@link #mimeType()} says otherwise), a {@code byte[]} as a blob, a {@code ReadResourceResult}
 * or {@code ResourceContents} as is, and anything else (records, lists, maps) as JSON text of
 * type {@code application/json}. Returning null answers "resource not found".
 *
 * <pre>{@code
 * final class Files {
 *   @McpResource(uri = "docs://readme", description = "The README")
 *   String readme() {
 *     return Files.readString(Path.of("README.md"));
 *   }
 *
 *   @McpResource(uri = "users://{id}/profile", mimeType = "application/json")
 *   Profile profile(long id) {
 *     return profiles.find(id); // null: not found
 *   }
 * }
 * McpServer server = McpServer.builder().annotated(new Files()).build();
 * }</pre>
 *
 * <p>The method runs on a handler thread and may block; what it throws is logged with an error id
 * and the client gets {@code -32603} with that id (a thrown {@code McpException} goes to the
 * client as it is).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpResource {

  /** The resource's URI, or a URI template with {@code {name}} variables. */
  String uri();

  /** The programmatic name; the method name when empty. */
  String name() default "";

  /** A display title. */
  String title() default "";

  /** What the resource holds, for the model. */
  String description() default "";

  /** The media type of the contents; chosen from the return type when empty. */
  String mimeType() default "";

  /** The OAuth scopes a caller's token must grant to see and read it. */
  String[] scopes() default {};
}
