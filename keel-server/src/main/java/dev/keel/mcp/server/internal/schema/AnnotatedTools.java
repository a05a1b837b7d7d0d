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
import java.lang.reflect.InvocationTargetException;
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
   */
  public record Made(Tool tool, ToolOptions options, ToolHandler handler) {}

  private record Arg(String name, JavaType type, boolean optional, boolean context) {}

  private AnnotatedTools() {}

  /**
   * Returns a tool for each annotated method of {@code instance}, in name order.
   *
   * @throws IllegalArgumentException when a method has a parameter Keel cannot name or type
   */
  public static List<Made> scan(Object instance, McpJson standard) {
    // Bind with ToolParam renames honoured, so arguments arrive under the advertised names.
    JsonMapper mapper = standard.mapper().rebuild()
        .annotationIntrospector(new ToolParamNames()).build();
    List<Made> made = new ArrayList<>();
    Method[] methods = instance.getClass().getDeclaredMethods();
    java.util.Arrays.sort(methods, java.util.Comparator.comparing(Method::getName));
    for (Method method : methods) {
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

  private static Made toTool(Object instance, Method method, McpTool annotation,
      JsonMapper json) {
    method.setAccessible(true);
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
      String argName = param != null && !param.name().isEmpty() ? param.name() : p.getName();
      if (param == null && !p.isNamePresent()) {
        throw new IllegalArgumentException(method + ": compile with -parameters or name the "
            + "parameter with @ToolParam(name = ...)");
      }
      Type type = p.getParameterizedType();
      ObjectNode property = TypeSchemas.of(type);
      if (param != null && !param.description().isEmpty()) {
        property.put("description", param.description());
      }
      properties.set(argName, property);
      boolean optional = TypeSchemas.isOptional(type)
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
    Optional<ObjectNode> output = outputSchema(method.getGenericReturnType());
    output.ifPresent(tool::outputSchema);
    boolean wrap = output.isPresent() && !TypeSchemas.raw(method.getGenericReturnType())
        .isRecord();
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
    return new Made(tool.build(), options, handler(instance, method, args, json, wrap));
  }

  private static Optional<ObjectNode> outputSchema(Type returned) {
    Class<?> raw = TypeSchemas.raw(returned);
    if (raw == void.class || raw == Void.class || raw == String.class
        || raw == CallToolResult.class || JsonNode.class.isAssignableFrom(raw)) {
      return Optional.empty();
    }
    ObjectNode schema = TypeSchemas.of(returned);
    if (raw.isRecord()) {
      return Optional.of(schema);
    }
    ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
    wrapper.put("type", "object");
    wrapper.putObject("properties").set("result", schema);
    wrapper.putArray("required").add("result");
    return Optional.of(wrapper);
  }

  private static ToolHandler handler(Object instance, Method method, List<Arg> args,
      JsonMapper json, boolean wrap) {
    return (ctx, arguments) -> {
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
      Object returned;
      try {
        returned = method.invoke(instance, values);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof Exception cause) {
          throw cause;
        }
        if (e.getCause() instanceof Error error) {
          throw error;
        }
        throw e;
      }
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
