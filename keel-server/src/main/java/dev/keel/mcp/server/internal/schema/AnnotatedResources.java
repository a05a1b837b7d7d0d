package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.McpResource;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ResourceHandler;
import dev.keel.mcp.server.ResourceTemplateHandler;
import dev.keel.mcp.server.UriVariable;
import dev.keel.mcp.server.internal.registry.Scopes;
import dev.keel.mcp.server.internal.registry.UriTemplate;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns {@link McpResource} methods into resources (a fixed URI) and resource templates (a URI
 * with variables bound to the parameters), and their return values into contents.
 */
public final class AnnotatedResources {

  /** A fixed-URI resource made from a method. */
  public record MadeResource(Resource resource, ResourceHandler handler, Set<String> scopes,
      String source) {}

  /** A resource template made from a method. */
  public record MadeTemplate(ResourceTemplate template, ResourceTemplateHandler handler,
      Set<String> scopes, String source) {}

  /** How one parameter is filled: the context, or a URI variable converted to its type. */
  private record Slot(String variable, Class<?> type) {}

  private AnnotatedResources() {}

  /** Returns true when the URI is a template (it has a variable). */
  static boolean isTemplate(McpResource annotation) {
    return annotation.uri().indexOf('{') >= 0;
  }

  /**
   * Returns the resource of a method whose URI is fixed.
   *
   * @throws IllegalArgumentException naming the class and method when it cannot work
   */
  static MadeResource resource(Object instance, Method method, McpResource annotation,
      JsonMapper json) {
    Methods.open(method);
    if (annotation.uri().isBlank()) {
      throw Methods.problem(method, "@McpResource needs a uri");
    }
    for (Parameter p : method.getParameters()) {
      if (p.getType() != RequestContext.class) {
        throw Methods.problem(method, "a resource with the fixed URI " + annotation.uri()
            + " takes no parameters but a RequestContext; put {variables} in the URI to make it "
            + "a template");
      }
    }
    String mime = mimeType(method, annotation, json);
    Resource resource = new Resource(annotation.uri(), name(method, annotation),
        blank(annotation.title()), blank(annotation.description()), mime, null, null, null,
        null);
    ResourceHandler handler = (ctx, uri) -> contents(uri, mime,
        Methods.invoke(instance, method, contextOnly(method, ctx)), json);
    return new MadeResource(resource, handler, Scopes.copyOf(List.of(annotation.scopes())),
        Methods.where(method));
  }

  /**
   * Returns the resource template of a method whose URI has variables.
   *
   * @throws IllegalArgumentException naming the class and method when it cannot work
   */
  static MadeTemplate template(Object instance, Method method, McpResource annotation,
      JsonMapper json) {
    Methods.open(method);
    UriTemplate uriTemplate;
    try {
      uriTemplate = UriTemplate.parse(annotation.uri());
    } catch (IllegalArgumentException e) {
      throw Methods.problem(method, e.getMessage(), e);
    }
    List<Slot> slots = new ArrayList<>();
    List<String> bound = new ArrayList<>();
    for (Parameter p : method.getParameters()) {
      if (p.getType() == RequestContext.class) {
        slots.add(new Slot(null, RequestContext.class));
        continue;
      }
      UriVariable named = p.getAnnotation(UriVariable.class);
      String variable = Methods.nameOf(method, p, named == null ? null : named.value(),
          "@UriVariable(\"...\")");
      if (!uriTemplate.variables().contains(variable)) {
        throw Methods.problem(method, "parameter " + variable + " is no variable of "
            + annotation.uri() + " (its variables: " + uriTemplate.variables() + ")");
      }
      if (bound.contains(variable)) {
        throw Methods.problem(method, "two parameters are bound to {" + variable + "}");
      }
      if (!Methods.isScalar(p.getType())) {
        throw Methods.problem(method, "parameter " + variable + " has type "
            + p.getType().getName() + "; a URI variable binds to String, a primitive, its box "
            + "or an enum");
      }
      bound.add(variable);
      slots.add(new Slot(variable, p.getType()));
    }
    for (String variable : uriTemplate.variables()) {
      if (!bound.contains(variable)) {
        throw Methods.problem(method, "the URI template variable {" + variable + "} of "
            + annotation.uri() + " has no parameter");
      }
    }
    String mime = mimeType(method, annotation, json);
    ResourceTemplate template = new ResourceTemplate(annotation.uri(), name(method, annotation),
        blank(annotation.title()), blank(annotation.description()), mime, null, null, null);
    ResourceTemplateHandler handler = (ctx, uri, variables) -> contents(uri, mime,
        Methods.invoke(instance, method, values(slots, ctx, uri, variables)), json);
    return new MadeTemplate(template, handler, Scopes.copyOf(List.of(annotation.scopes())),
        Methods.where(method));
  }

  private static Object[] contextOnly(Method method, RequestContext ctx) {
    Object[] values = new Object[method.getParameterCount()];
    java.util.Arrays.fill(values, ctx);
    return values;
  }

  private static Object[] values(List<Slot> slots, RequestContext ctx, String uri,
      Map<String, String> variables) {
    Object[] values = new Object[slots.size()];
    for (int i = 0; i < values.length; i++) {
      Slot slot = slots.get(i);
      if (slot.variable() == null) {
        values[i] = ctx;
        continue;
      }
      try {
        values[i] = Methods.fromText(variables.get(slot.variable()), slot.type());
      } catch (IllegalArgumentException e) {
        // a variable that is no value of its type names no resource
        throw McpErrors.resourceNotFound(uri);
      }
    }
    return values;
  }

  private static String name(Method method, McpResource annotation) {
    return annotation.name().isEmpty() ? method.getName() : annotation.name();
  }

  private static String blank(String text) {
    return text.isEmpty() ? null : text;
  }

  /** The declared media type, else one that fits the return type. */
  private static String mimeType(Method method, McpResource annotation, JsonMapper json) {
    Class<?> returned = method.getReturnType();
    if (returned == void.class || returned == Void.class) {
      throw Methods.problem(method, "a resource must return its contents: String, byte[], a "
          + "record or other JSON value, ResourceContents or ReadResourceResult");
    }
    String declared = annotation.mimeType().isEmpty() ? null : annotation.mimeType();
    if (returned == String.class) {
      return declared != null ? declared : "text/plain";
    }
    if (returned == byte[].class) {
      return declared != null ? declared : "application/octet-stream";
    }
    if (ReadResourceResult.class.isAssignableFrom(returned)
        || ResourceContents.class.isAssignableFrom(returned)) {
      return declared; // else the contents say
    }
    try {
      // anything else is sent as JSON, so it must have a JSON form
      new TypeSchemas(json).schema(method.getGenericReturnType(), TypeSchemas.Direction.OUT);
    } catch (IllegalArgumentException e) {
      throw Methods.problem(method, "return type: " + e.getMessage(), e);
    }
    return annotation.mimeType().isEmpty() ? "application/json" : annotation.mimeType();
  }

  /** Maps a return value to contents; null means the resource does not exist. */
  private static ReadResourceResult contents(String uri, String mime, Object returned,
      JsonMapper json) {
    if (returned == null) {
      throw McpErrors.resourceNotFound(uri);
    }
    if (returned instanceof ReadResourceResult result) {
      return result;
    }
    if (returned instanceof ResourceContents contents) {
      return ReadResourceResult.of(contents);
    }
    if (returned instanceof String text) {
      return ReadResourceResult.of(ResourceContents.text(uri, mime, text));
    }
    if (returned instanceof byte[] bytes) {
      return ReadResourceResult.of(ResourceContents.blob(uri, mime,
          Base64.getEncoder().encodeToString(bytes)));
    }
    JsonNode tree = json.valueToTree(returned);
    return ReadResourceResult.of(ResourceContents.text(uri, mime, json.writeValueAsString(tree)));
  }
}
