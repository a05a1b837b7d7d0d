package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.schema.CompleteRequest;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.server.CompletionHandler;
import dev.keel.mcp.server.McpCompletion;
import dev.keel.mcp.server.RequestContext;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns {@link McpCompletion} methods into completion handlers. A method completes one argument;
 * the protocol asks per prompt or template, so {@link #bind} joins the methods of one
 * reference into one handler that picks by argument name.
 */
public final class AnnotatedCompletions {

  /**
   * The completion of one argument, made from a method.
   *
   * @param ref the prompt or template
   * @param argument the argument or variable it completes
   * @param handler what completes it
   * @param source the method, for error messages
   */
  public record Made(CompletionReference ref, String argument, CompletionHandler handler,
      String source) {}

  private enum Slot { VALUE, CONTEXT_ARGUMENTS, REQUEST, CONTEXT }

  private AnnotatedCompletions() {}

  /**
   * Returns the completion of a method.
   *
   * @throws IllegalArgumentException naming the class and method when it cannot work
   */
  static Made completion(Object instance, Method method, McpCompletion annotation) {
    Methods.open(method);
    boolean prompt = !annotation.prompt().isEmpty();
    if (prompt == !annotation.resource().isEmpty()) {
      throw Methods.problem(method, "@McpCompletion names exactly one of prompt and resource");
    }
    if (annotation.argument().isEmpty()) {
      throw Methods.problem(method, "@McpCompletion needs the argument it completes");
    }
    CompletionReference ref = prompt
        ? new CompletionReference.PromptRef(annotation.prompt())
        : new CompletionReference.ResourceTemplateRef(annotation.resource());
    List<Slot> slots = new ArrayList<>();
    for (Parameter p : method.getParameters()) {
      Slot slot = slotOf(method, p);
      if (slots.contains(slot)) {
        throw Methods.problem(method, "two parameters of type " + p.getType().getSimpleName());
      }
      slots.add(slot);
    }
    boolean list = checkReturn(method);
    CompletionHandler handler = (ctx, request) -> {
      Object returned = Methods.invoke(instance, method, values(slots, ctx, request));
      if (returned == null) {
        return Completion.empty();
      }
      if (list) {
        @SuppressWarnings("unchecked")
        List<String> all = (List<String>) returned;
        return new Completion(all, all.size(), all.size() > Completion.MAX_VALUES);
      }
      return (Completion) returned;
    };
    return new Made(ref, annotation.argument(), handler, Methods.where(method));
  }

  private static Slot slotOf(Method method, Parameter p) {
    Class<?> type = p.getType();
    if (type == String.class) {
      return Slot.VALUE;
    }
    if (type == RequestContext.class) {
      return Slot.CONTEXT;
    }
    if (type == CompleteRequest.class) {
      return Slot.REQUEST;
    }
    if (type == Map.class && isStringMap(p.getParameterizedType())) {
      return Slot.CONTEXT_ARGUMENTS;
    }
    throw Methods.problem(method, "parameter " + p.getName() + " has type "
        + p.getParameterizedType().getTypeName() + "; a completion takes a String (the value "
        + "so far), a Map<String, String> (the arguments already chosen), the CompleteRequest "
        + "and the RequestContext");
  }

  private static boolean isStringMap(Type type) {
    return type instanceof ParameterizedType p
        && p.getActualTypeArguments()[0] == String.class
        && p.getActualTypeArguments()[1] == String.class;
  }

  /** Returns true for {@code List<String>}, false for {@code Completion}. */
  private static boolean checkReturn(Method method) {
    Type type = method.getGenericReturnType();
    if (type == Completion.class) {
      return false;
    }
    if (type instanceof ParameterizedType p && p.getRawType() == List.class
        && p.getActualTypeArguments()[0] == String.class) {
      return true;
    }
    throw Methods.problem(method, "a completion returns Completion or List<String>, not "
        + type.getTypeName());
  }

  private static Object[] values(List<Slot> slots, RequestContext ctx, CompleteRequest request) {
    Object[] values = new Object[slots.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = switch (slots.get(i)) {
        case VALUE -> request.argument().value();
        case CONTEXT_ARGUMENTS -> request.context() == null ? Map.of()
            : request.context().arguments();
        case REQUEST -> request;
        case CONTEXT -> ctx;
      };
    }
    return values;
  }

  /**
   * Joins the completions of each reference into one handler that completes by argument name
   * (an argument nobody completes gets no suggestions).
   *
   * @param argumentsOf the arguments (or variables) a registered prompt (or template) declares,
   *     empty when there is no such prompt or template
   * @throws IllegalArgumentException when a completion names a prompt, template or argument that
   *     was not registered, or two methods complete the same argument
   */
  public static Map<CompletionReference, CompletionHandler> bind(List<Made> all,
      Function<CompletionReference, Optional<List<String>>> argumentsOf) {
    Map<CompletionReference, Map<String, Made>> byRef = new LinkedHashMap<>();
    for (Made made : all) {
      Optional<List<String>> declared = argumentsOf.apply(made.ref());
      if (declared.isEmpty()) {
        throw new IllegalArgumentException(made.source() + ": completes an argument of "
            + describe(made.ref()) + ", which is not registered with this server");
      }
      if (!declared.get().contains(made.argument())) {
        throw new IllegalArgumentException(made.source() + ": " + describe(made.ref())
            + " has no argument " + made.argument() + " (it has " + declared.get() + ")");
      }
      Map<String, Made> arguments = byRef.computeIfAbsent(made.ref(), r -> new LinkedHashMap<>());
      Made earlier = arguments.putIfAbsent(made.argument(), made);
      if (earlier != null) {
        throw new IllegalArgumentException(made.source() + ": argument " + made.argument()
            + " of " + describe(made.ref()) + " is already completed by " + earlier.source());
      }
    }
    Map<CompletionReference, CompletionHandler> handlers = new LinkedHashMap<>();
    byRef.forEach((ref, arguments) -> handlers.put(ref, (ctx, request) -> {
      Made made = arguments.get(request.argument().name());
      return made == null ? Completion.empty() : made.handler().complete(ctx, request);
    }));
    return handlers;
  }

  /** Names a reference for a message: {@code prompt greet}, {@code resource template x://{y}}. */
  public static String describe(CompletionReference ref) {
    return ref instanceof CompletionReference.PromptRef p ? "prompt " + p.name()
        : "resource template " + ((CompletionReference.ResourceTemplateRef) ref).uri();
  }
}
