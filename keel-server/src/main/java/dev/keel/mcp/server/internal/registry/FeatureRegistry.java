package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.server.CompletionHandler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The tools, resources, templates, prompts and completions a server offers.
 *
 * <p>Reads see an immutable snapshot and never lock; writes copy under a lock, keep
 * registration order (a replaced entry keeps its place, so lists are deterministic) and then
 * report the change.
 */
public final class FeatureRegistry {

  private final ReentrantLock writeLock = new ReentrantLock();
  private final Consumer<FeatureKind> onChange;
  private volatile Map<String, ToolEntry> tools = Map.of();
  private volatile Map<String, ResourceEntry> resources = Map.of();
  private volatile Map<String, TemplateEntry> templates = Map.of();
  private volatile Map<String, PromptEntry> prompts = Map.of();
  private volatile Map<CompletionReference, CompletionHandler> completions = Map.of();

  /** Creates an empty registry that reports changes to {@code onChange}. */
  public FeatureRegistry(Consumer<FeatureKind> onChange) {
    this.onChange = onChange;
  }

  /** Adds or replaces a tool. */
  public void putTool(ToolEntry entry) {
    writeLock.lock();
    try {
      tools = with(tools, entry.tool().name(), entry);
    } finally {
      writeLock.unlock();
    }
    onChange.accept(FeatureKind.TOOLS);
  }

  /** Removes a tool. */
  public boolean removeTool(String name) {
    return remove(name, () -> tools, m -> tools = m, FeatureKind.TOOLS);
  }

  /** Adds or replaces a resource. */
  public void putResource(ResourceEntry entry) {
    writeLock.lock();
    try {
      resources = with(resources, entry.resource().uri(), entry);
    } finally {
      writeLock.unlock();
    }
    onChange.accept(FeatureKind.RESOURCES);
  }

  /** Removes a resource. */
  public boolean removeResource(String uri) {
    return remove(uri, () -> resources, m -> resources = m, FeatureKind.RESOURCES);
  }

  /** Adds or replaces a template. */
  public void putTemplate(TemplateEntry entry) {
    writeLock.lock();
    try {
      templates = with(templates, entry.template().uriTemplate(), entry);
    } finally {
      writeLock.unlock();
    }
    onChange.accept(FeatureKind.RESOURCES);
  }

  /** Adds or replaces a prompt. */
  public void putPrompt(PromptEntry entry) {
    writeLock.lock();
    try {
      prompts = with(prompts, entry.prompt().name(), entry);
    } finally {
      writeLock.unlock();
    }
    onChange.accept(FeatureKind.PROMPTS);
  }

  /** Removes a prompt. */
  public boolean removePrompt(String name) {
    return remove(name, () -> prompts, m -> prompts = m, FeatureKind.PROMPTS);
  }

  /** Adds or replaces a completion handler. */
  public void putCompletion(CompletionReference ref, CompletionHandler handler) {
    writeLock.lock();
    try {
      completions = with(completions, ref, handler);
    } finally {
      writeLock.unlock();
    }
  }

  /** Returns the tools in registration order. */
  public List<ToolEntry> tools() {
    return List.copyOf(tools.values());
  }

  /** Returns the tool with this name, if any. */
  public Optional<ToolEntry> tool(String name) {
    return Optional.ofNullable(tools.get(name));
  }

  /** Returns the resources in registration order. */
  public List<ResourceEntry> resources() {
    return List.copyOf(resources.values());
  }

  /** Returns the resource registered under exactly this URI, if any. */
  public Optional<ResourceEntry> resource(String uri) {
    return Optional.ofNullable(resources.get(uri));
  }

  /** Returns the templates in registration order. */
  public List<TemplateEntry> templates() {
    return List.copyOf(templates.values());
  }

  /** Returns the template registered with exactly this URI template, if any. */
  public Optional<TemplateEntry> template(String uriTemplate) {
    return Optional.ofNullable(templates.get(uriTemplate));
  }

  /** Returns the prompts in registration order. */
  public List<PromptEntry> prompts() {
    return List.copyOf(prompts.values());
  }

  /** Returns the prompt with this name, if any. */
  public Optional<PromptEntry> prompt(String name) {
    return Optional.ofNullable(prompts.get(name));
  }

  /** Returns the completion handler for a reference, if any. */
  public Optional<CompletionHandler> completion(CompletionReference ref) {
    return Optional.ofNullable(completions.get(ref));
  }

  /** Returns true when any completion handler is registered. */
  public boolean hasCompletions() {
    return !completions.isEmpty();
  }

  private <K, V> boolean remove(K key, java.util.function.Supplier<Map<K, V>> get,
      Consumer<Map<K, V>> set, FeatureKind kind) {
    writeLock.lock();
    try {
      Map<K, V> current = get.get();
      if (!current.containsKey(key)) {
        return false;
      }
      Map<K, V> copy = new LinkedHashMap<>(current);
      copy.remove(key);
      set.accept(java.util.Collections.unmodifiableMap(copy));
    } finally {
      writeLock.unlock();
    }
    onChange.accept(kind);
    return true;
  }

  private static <K, V> Map<K, V> with(Map<K, V> current, K key, V value) {
    Map<K, V> copy = new LinkedHashMap<>(current);
    copy.put(key, value);
    return java.util.Collections.unmodifiableMap(copy);
  }

  /** Returns the first value of {@code f} over the templates that is present. */
  public <T> Optional<T> firstTemplate(Function<TemplateEntry, Optional<T>> f) {
    for (TemplateEntry entry : templates.values()) {
      Optional<T> hit = f.apply(entry);
      if (hit.isPresent()) {
        return hit;
      }
    }
    return Optional.empty();
  }
}
