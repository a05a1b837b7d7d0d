package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolHandler;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.ToolParam;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns the {@link McpTool} methods of an object into tools: an input schema generated from the
 * parameters, arguments bound by Jackson, and the return value mapped to a result.
 */
public final class AnnotatedTools {

  /**
   * A tool made from a method.
   *
   * @param tool the tool as listed
   * @param options the timeout, interrupt and approval settings from the annotation
   * @param handler the handler that invokes the method
   * @param source the method, for error messages
   */
  public record Made(Tool tool, ToolOptions options, ToolHandler handler, String source) {}

  private record Arg(String name, JavaType type, boolean optional, boolean context) {}

  private AnnotatedTools() {}

  /**
   * Returns a tool for each annotated method of {@code instance}, in name order.
   *
   * @throws IllegalArgumentException when a method has a parameter Keel cannot name or type
   */
  public static List<Made> scan(Object instance, McpJson standard) {
    JsonMapper mapper = mapper(standard);
    List<Made> made = new ArrayList<>();
    for (Method method : Methods.of(instance.getClass())) {
      McpTool annotation = method.getAnnotation(McpTool.class);
      if (annotation != null) {
        made.add(toTool(instance, method, annotation, mapper));
      }
    }
    if (made.isEmpty()) {
      throw new IllegalArgumentException(instance.getClass().getName()
          + " has no @McpTool methods");
    }
    return made;
  }

  /** Returns the mapper annotated tools bind with: Keel's, with ToolParam renames honoured. */
  static JsonMapper mapper(McpJson standard) {
    return standard.mapper().rebuild().annotationIntrospector(new ToolParamNames()).build();
  }

  /**
   * Returns the tool of one annotated method.
   *
   * @throws IllegalArgumentException naming the class and method when it cannot work
   */
  static Made toTool(Object instance, Method method, McpTool annotation, JsonMapper json) {
    Methods.open(method);
    TypeSchemas schemas = new TypeSchemas(json);
    String name = annotation.name().isEmpty() ? method.getName() : annotation.name();
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    ArrayNode required = JsonNodeFactory.instance.arrayNode();
    List<Arg> args = new ArrayList<>();
    for (Parameter p : method.getParameters()) {
      if (p.getType() == RequestContext.class) {
        args.add(new Arg(null, null, true, true));
        continue;
      }
      ToolParam param = p.getAnnotation(ToolParam.class);
      String argName = Methods.nameOf(method, p, param == null ? null : param.name(),
          "@ToolParam(name = ...)");
      if (properties.has(argName)) {
        throw Methods.problem(method, "two parameters are named " + argName);
      }
      Type type = p.getParameterizedType();
      ObjectNode property;
      try {
        property = schemas.schema(type, TypeSchemas.Direction.IN);
      } catch (IllegalArgumentException e) {
        throw Methods.problem(method, "parameter " + argName + ": " + e.getMessage(), e);
      }
      if (param != null && !param.description().isEmpty()) {
        property.put("description", param.description());
      }
      boolean hasDefault = param != null && !param.defaultValue().isEmpty();
      if (hasDefault) {
        try {
          property.set("default", schemas.defaultValue(param.defaultValue(), type, argName));
        } catch (IllegalArgumentException e) {
          throw Methods.problem(method, e.getMessage(), e);
        }
      }
      properties.set(argName, property);
      boolean optional = TypeSchemas.isOptional(type) || hasDefault
          || (param != null && !param.required() && !p.getType().isPrimitive());
      if (!optional) {
        required.add(argName);
      }
      args.add(new Arg(argName, json.constructType(type), optional, false));
    }
    if (!required.isEmpty()) {
      schema.set("required", required);
    }
    schema.put("additionalProperties", false);
    Tool.Builder tool = Tool.builder(name).inputSchema(schema);
    if (!annotation.description().isEmpty()) {
      tool.description(annotation.description());
    }
    if (!annotation.title().isEmpty()) {
      tool.title(annotation.title());
    }
    if (annotation.readOnly() || annotation.destructive()) {
      tool.annotations(new ToolAnnotations(null, annotation.readOnly() ? true : null,
          annotation.destructive() ? true : null, annotation.readOnly() ? true : null, null));
    }
    ObjectNode returned;
    try {
      returned = returnSchema(schemas, method.getGenericReturnType());
    } catch (IllegalArgumentException e) {
      throw Methods.problem(method, "return type: " + e.getMessage(), e);
    }
    // a record or a bean is the structured content itself; anything else is wrapped in "result"
    boolean wrap = returned != null && !isObject(returned);
    if (returned != null) {
      tool.outputSchema(wrap ? wrapper(returned) : returned);
    }
    ToolOptions options = ToolOptions.defaults();
    if (annotation.timeoutSeconds() > 0) {
      options = options.withTimeout(java.time.Duration.ofSeconds(annotation.timeoutSeconds()));
    }
    if (!annotation.interruptOnCancel()) {
      options = options.withoutInterrupt();
    }
    if (annotation.requiresApproval()) {
      options = options.withApproval();
    }
    if (annotation.nonBlocking()) {
      options = options.withNonBlocking();
    }
    if (annotation.scopes().length > 0) {
      options = options.withRequiredScopes(annotation.scopes());
    }
    return new Made(tool.build(), options,
        handler(instance, method, args, json, wrap, schema), Methods.where(method));
  }

  /** Returns the schema of what a method returns, or null when it has no structured form. */
  private static ObjectNode returnSchema(TypeSchemas schemas, Type returned) {
    Class<?> raw = TypeSchemas.raw(returned);
    if (raw == void.class || raw == Void.class || raw == String.class
        || raw == CallToolResult.class || JsonNode.class.isAssignableFrom(raw)) {
      return null;
    }
    return schemas.schema(returned, TypeSchemas.Direction.OUT);
  }

  /** A record or a bean: an object with declared properties, not a map. */
  private static boolean isObject(ObjectNode schema) {
    return schema.path("type").asString("").equals("object") && schema.has("properties");
  }

  private static ObjectNode wrapper(ObjectNode schema) {
    ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
    wrapper.put("type", "object");
    wrapper.putObject("properties").set("result", schema);
    wrapper.putArray("required").add("result");
    return wrapper;
  }

  private static ToolHandler handler(Object instance, Method method, List<Arg> args,
      JsonMapper json, boolean wrap, ObjectNode schema) {
    return (ctx, given) -> {
      JsonNode arguments = Defaults.fill(schema, given);
      Object[] values = new Object[args.size()];
      for (int i = 0; i < values.length; i++) {
        Arg arg = args.get(i);
        if (arg.context()) {
          values[i] = ctx;
          continue;
        }
        JsonNode value = arguments.get(arg.name());
        try {
          values[i] = value == null || value.isNull()
              ? (arg.type().getRawClass() == Optional.class ? Optional.empty() : null)
              : json.treeToValue(value, arg.type());
        } catch (JacksonException e) {
          return CallToolResult.error("Invalid value for argument " + arg.name());
        }
      }
      Object returned = Methods.invoke(instance, method, values);
      return toResult(returned, json, wrap);
    };
  }

  private static CallToolResult toResult(Object returned, JsonMapper json, boolean wrap) {
    if (returned == null) {
      return new CallToolResult(List.of(), null, null, null);
    }
    if (returned instanceof CallToolResult result) {
      return result;
    }
    if (returned instanceof String text) {
      return CallToolResult.text(text);
    }
    JsonNode tree = json.valueToTree(returned);
    if (wrap) {
      ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
      wrapper.set("result", tree);
      tree = wrapper;
    }
    return CallToolResult.structured(tree);
  }
}
