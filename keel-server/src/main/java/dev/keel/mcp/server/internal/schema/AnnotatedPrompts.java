package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.server.McpPrompt;
import dev.keel.mcp.server.PromptArg;
import dev.keel.mcp.server.PromptHandler;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.internal.registry.Scopes;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns {@link McpPrompt} methods into prompts: arguments from the parameters (converted from
 * their text, defaults applied), and the return value into messages.
 */
public final class AnnotatedPrompts {

  /** A prompt made from a method. */
  public record MadePrompt(Prompt prompt, PromptHandler handler, Set<String> scopes, String source) {}

  /**
   * How one parameter is filled: the context, or an argument converted to its type.
   *
   * @param fallback the default's text, or null
   */
  private record Slot(String name, Class<?> type, boolean optional, String fallback) {}

  private AnnotatedPrompts() {}

  /**
   * Returns the prompt of a method.
   *
   * @throws IllegalArgumentException naming the class and method when it cannot work
   */
  static MadePrompt prompt(Object instance, Method method, McpPrompt annotation) {
    Methods.open(method);
    checkReturn(method);
    List<Slot> slots = new ArrayList<>();
    List<PromptArgument> arguments = new ArrayList<>();
    for (Parameter p : method.getParameters()) {
      if (p.getType() == RequestContext.class) {
        slots.add(new Slot(null, RequestContext.class, true, null));
        continue;
      }
      PromptArg arg = p.getAnnotation(PromptArg.class);
      String name = Methods.nameOf(method, p, arg == null ? null : arg.name(),
          "@PromptArg(name = ...)");
      if (arguments.stream().anyMatch(a -> a.name().equals(name))) {
        throw Methods.problem(method, "two parameters are named " + name);
      }
      boolean optional = p.getType() == Optional.class;
      Class<?> type = optional ? optionalContent(method, p, name) : p.getType();
      if (!Methods.isScalar(type)) {
        throw Methods.problem(method, "parameter " + name + " has type " + p.getType().getName()
            + "; a prompt argument is text, so it binds to String, a primitive, its box, an "
            + "enum or an Optional of one");
      }
      String fallback = arg == null || arg.defaultValue().isEmpty() ? null : arg.defaultValue();
      if (fallback != null) {
        try {
          Methods.fromText(fallback, type);
        } catch (IllegalArgumentException e) {
          throw Methods.problem(method, "default value " + fallback + " of " + name
              + " is no " + type.getSimpleName(), e);
        }
      }
      boolean required = !optional && fallback == null && (arg == null || arg.required());
      arguments.add(new PromptArgument(name, arg == null || arg.title().isEmpty() ? null
          : arg.title(), describe(arg, fallback), required ? true : null));
      slots.add(new Slot(name, type, optional, fallback));
    }
    String description = annotation.description().isEmpty() ? null : annotation.description();
    Prompt prompt = new Prompt(annotation.name().isEmpty() ? method.getName() : annotation.name(),
        annotation.title().isEmpty() ? null : annotation.title(), description,
        arguments.isEmpty() ? null : arguments, null, null);
    PromptHandler handler = (ctx, given) -> result(description,
        Methods.invoke(instance, method, values(slots, ctx, given)));
    return new MadePrompt(prompt, handler, Scopes.copyOf(List.of(annotation.scopes())),
        Methods.where(method));
  }

  /** The description a client shows, with the default named (a prompt argument has no field). */
  private static String describe(PromptArg arg, String fallback) {
    String text = arg == null || arg.description().isEmpty() ? null : arg.description();
    if (fallback == null) {
      return text;
    }
    return (text == null ? "" : text + " ") + "(default: " + fallback + ")";
  }

  private static Class<?> optionalContent(Method method, Parameter p, String name) {
    Type type = p.getParameterizedType();
    if (type instanceof ParameterizedType pt && pt.getActualTypeArguments()[0] instanceof Class<?>
        c) {
      return c;
    }
    throw Methods.problem(method, "parameter " + name + ": raw Optional, say what it holds");
  }

  private static void checkReturn(Method method) {
    Class<?> raw = method.getReturnType();
    Type generic = method.getGenericReturnType();
    boolean messages = List.class.isAssignableFrom(raw) && generic instanceof ParameterizedType p
        && p.getActualTypeArguments()[0] == PromptMessage.class;
    if (raw != String.class && raw != PromptMessage.class && raw != GetPromptResult.class
        && !messages) {
      throw Methods.problem(method, "a prompt returns String, PromptMessage, "
          + "List<PromptMessage> or GetPromptResult, not " + generic.getTypeName());
    }
  }

  private static Object[] values(List<Slot> slots, RequestContext ctx,
      Map<String, String> given) {
    Object[] values = new Object[slots.size()];
    for (int i = 0; i < values.length; i++) {
      Slot slot = slots.get(i);
      if (slot.name() == null) {
        values[i] = ctx;
        continue;
      }
      String text = given.get(slot.name());
      if (text == null) {
        text = slot.fallback();
      }
      if (text == null) {
        // only optional arguments get here: required ones were checked before the call
        values[i] = slot.optional() ? Optional.empty() : primitiveZero(slot.type());
        continue;
      }
      Object value;
      try {
        value = Methods.fromText(text, slot.type());
      } catch (IllegalArgumentException e) {
        throw McpException.invalidParams("Invalid value for argument " + slot.name());
      }
      values[i] = slot.optional() ? Optional.of(value) : value;
    }
    return values;
  }

  /** What an optional primitive is when left out: its zero, as for a field. */
  private static Object primitiveZero(Class<?> type) {
    if (!type.isPrimitive()) {
      return null;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == char.class) {
      return '\0';
    }
    return Methods.fromText("0", type);
  }

  @SuppressWarnings("unchecked")
  private static GetPromptResult result(String description, Object returned) {
    if (returned == null || returned instanceof GetPromptResult) {
      return (GetPromptResult) returned; // null: the engine logs it and answers an error id
    }
    if (returned instanceof String text) {
      return new GetPromptResult(description, List.of(PromptMessage.user(text)), null);
    }
    if (returned instanceof PromptMessage message) {
      return new GetPromptResult(description, List.of(message), null);
    }
    return new GetPromptResult(description, (List<PromptMessage>) returned, null);
  }
}
