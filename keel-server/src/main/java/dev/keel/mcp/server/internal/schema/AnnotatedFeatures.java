package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpCompletion;
import dev.keel.mcp.server.McpPrompt;
import dev.keel.mcp.server.McpResource;
import dev.keel.mcp.server.McpTool;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds every annotated method of an object ({@link McpTool}, {@link McpResource},
 * {@link McpPrompt}, {@link McpCompletion}) and makes its feature, so that one registration
 * covers them all. Everything that could not work fails here, at registration, with a message
 * naming the class and the method.
 */
public final class AnnotatedFeatures {

  /**
   * The features of one object, each list in method-name order.
   *
   * @param tools its tools
   * @param resources its fixed-URI resources
   * @param templates its resource templates
   * @param prompts its prompts
   * @param completions its argument completions
   */
  public record Scanned(List<AnnotatedTools.Made> tools,
      List<AnnotatedResources.MadeResource> resources,
      List<AnnotatedResources.MadeTemplate> templates,
      List<AnnotatedPrompts.MadePrompt> prompts, List<AnnotatedCompletions.Made> completions) {}

  private static final List<Class<? extends Annotation>> KINDS =
      List.of(McpTool.class, McpResource.class, McpPrompt.class, McpCompletion.class);

  private AnnotatedFeatures() {}

  /**
   * Returns the features of {@code instance}.
   *
   * @throws IllegalArgumentException when it has none, or a method cannot work
   */
  public static Scanned scan(Object instance, McpJson standard) {
    JsonMapper mapper = AnnotatedTools.mapper(standard);
    List<AnnotatedTools.Made> tools = new ArrayList<>();
    List<AnnotatedResources.MadeResource> resources = new ArrayList<>();
    List<AnnotatedResources.MadeTemplate> templates = new ArrayList<>();
    List<AnnotatedPrompts.MadePrompt> prompts = new ArrayList<>();
    List<AnnotatedCompletions.Made> completions = new ArrayList<>();
    // which method took each name, so a clash names both
    Map<String, String> taken = new HashMap<>();
    for (Method method : Methods.of(instance.getClass())) {
      List<Class<? extends Annotation>> kinds =
          KINDS.stream().filter(method::isAnnotationPresent).toList();
      if (kinds.size() > 1) {
        throw Methods.problem(method, "one method is one feature, not "
            + kinds.stream().map(k -> "@" + k.getSimpleName()).toList());
      }
      if (kinds.isEmpty()) {
        continue;
      }
      Class<? extends Annotation> kind = kinds.get(0);
      if (kind == McpTool.class) {
        AnnotatedTools.Made made = AnnotatedTools.toTool(instance, method,
            method.getAnnotation(McpTool.class), mapper);
        claim(taken, method, "tool " + made.tool().name());
        tools.add(made);
      } else if (kind == McpResource.class) {
        McpResource annotation = method.getAnnotation(McpResource.class);
        if (AnnotatedResources.isTemplate(annotation)) {
          AnnotatedResources.MadeTemplate made =
              AnnotatedResources.template(instance, method, annotation, mapper);
          claim(taken, method, "resource template " + made.template().uriTemplate());
          templates.add(made);
        } else {
          AnnotatedResources.MadeResource made =
              AnnotatedResources.resource(instance, method, annotation, mapper);
          claim(taken, method, "resource " + made.resource().uri());
          resources.add(made);
        }
      } else if (kind == McpPrompt.class) {
        AnnotatedPrompts.MadePrompt made =
            AnnotatedPrompts.prompt(instance, method, method.getAnnotation(McpPrompt.class));
        claim(taken, method, "prompt " + made.prompt().name());
        prompts.add(made);
      } else {
        AnnotatedCompletions.Made made = AnnotatedCompletions.completion(instance, method,
            method.getAnnotation(McpCompletion.class));
        claim(taken, method, "completion of " + made.argument() + " of "
            + AnnotatedCompletions.describe(made.ref()));
        completions.add(made);
      }
    }
    if (Stream.of(tools, resources, templates, prompts, completions).allMatch(List::isEmpty)) {
      throw new IllegalArgumentException(instance.getClass().getName() + " has no @McpTool, "
          + "@McpResource, @McpPrompt or @McpCompletion methods");
    }
    return new Scanned(tools, resources, templates, prompts, completions);
  }

  private static void claim(Map<String, String> taken, Method method, String feature) {
    String earlier = taken.putIfAbsent(feature, Methods.where(method));
    if (earlier != null) {
      throw Methods.problem(method, feature + " is already declared by " + earlier);
    }
  }
}
