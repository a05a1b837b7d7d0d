package dev.keel.agent.internal;

import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.mcp.server.RequestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The databases one agent serves, by name, each with its own connections, catalog, check,
 * limits and access policy. A principal may name a source only when the source's policy has an
 * entry for it (its own or {@code "*"}); any other source does not exist for it, and naming it
 * gets exactly the answer a source that does not exist gets. Without a name, a call goes to the
 * first source the principal may use.
 */
public final class Sources implements AutoCloseable {

  /** The one answer for a source that does not exist and one the caller may not use. */
  public static final String NO_SOURCE = "Source not found or not allowed";

  private final Map<String, AgentCore> byName;

  /** Takes the sources in the order they were configured. */
  public Sources(Map<String, AgentCore> byName) {
    if (byName.isEmpty()) {
      throw new IllegalArgumentException("the agent needs at least one source");
    }
    this.byName = new LinkedHashMap<>(byName);
  }

  /** Returns every source, in order (for start-up and operators, never for a caller). */
  public List<AgentCore> all() {
    return List.copyOf(byName.values());
  }

  /** Returns true when the agent serves one source only. */
  public boolean single() {
    return byName.size() == 1;
  }

  /** Returns the sources the caller may use, in order. */
  public List<AgentCore> visible(RequestContext ctx) {
    List<AgentCore> out = new ArrayList<>();
    for (AgentCore core : byName.values()) {
      if (core.admits(ctx)) {
        out.add(core);
      }
    }
    return out;
  }

  /**
   * Returns the source a call names in its {@code source} argument, or the caller's first one.
   *
   * @throws QueryFailedException with {@link #NO_SOURCE} when there is no such source for it
   */
  public AgentCore pick(RequestContext ctx, JsonNode args) {
    JsonNode named = args == null ? null : args.get("source");
    return pick(ctx, named == null || named.isNull() ? null : named.asString(""));
  }

  /** Returns the source named {@code name} (null: the caller's first), as {@link #pick}. */
  public AgentCore pick(RequestContext ctx, String name) {
    if (name == null) {
      for (AgentCore core : byName.values()) {
        if (core.admits(ctx)) {
          return core;
        }
      }
      throw new QueryFailedException(NO_SOURCE);
    }
    AgentCore core = byName.get(name);
    if (core == null || !core.admits(ctx)) {
      throw new QueryFailedException(NO_SOURCE);
    }
    return core;
  }

  /** Closes every source's connections. */
  @Override
  public void close() {
    RuntimeException first = null;
    for (AgentCore core : byName.values()) {
      try {
        core.db().close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
