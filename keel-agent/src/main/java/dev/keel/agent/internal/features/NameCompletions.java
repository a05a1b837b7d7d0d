package dev.keel.agent.internal.features;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.mcp.core.schema.CompleteRequest;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.server.CompletionHandler;
import dev.keel.mcp.server.McpServer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Completion of table and column names in the prompts and resource templates, from the
 * caller's own view: a hidden table or column is never suggested. Column suggestions follow
 * the table already chosen in the request's context.
 */
public final class NameCompletions {

  private NameCompletions() {}

  /** Registers completions for every prompt and template argument that names a table or column. */
  public static void register(McpServer.Builder server, Sources sources) {
    CompletionHandler names = (ctx, request) -> {
      if (request.argument().name().equals("source")) {
        return matching(sources.visible(ctx).stream().map(AgentCore::name).toList(),
            request.argument().value());
      }
      String named = request.context() == null ? null
          : request.context().arguments().get("source");
      AgentCore core;
      try {
        core = sources.pick(ctx, named);
      } catch (QueryFailedException e) {
        // a source the caller may not use completes exactly like one that does not exist
        return new Completion(List.of(), 0, false);
      }
      return complete(core.visible(ctx), request);
    };
    server.completion(new CompletionReference.PromptRef(ExplorePrompts.DATABASE), names);
    server.completion(new CompletionReference.PromptRef(ExplorePrompts.TABLE), names);
    server.completion(new CompletionReference.PromptRef(ExplorePrompts.COUNT_BY), names);
    for (String template : List.of(TableResources.SCHEMA, TableResources.COUNT,
        TableResources.SAMPLE, TableResources.SOURCE_TABLES, TableResources.SOURCE_SCHEMA,
        TableResources.SOURCE_COUNT, TableResources.SOURCE_SAMPLE)) {
      server.completion(new CompletionReference.ResourceTemplateRef(template), names);
    }
  }

  private static Completion matching(List<String> candidates, String value) {
    String prefix = value.toLowerCase(Locale.ROOT);
    List<String> hits = candidates.stream()
        .filter(c -> c.toLowerCase(Locale.ROOT).startsWith(prefix)).sorted().toList();
    return new Completion(hits, hits.size(), hits.size() > Completion.MAX_VALUES);
  }

  static Completion complete(VisibleSchema visible, CompleteRequest request) {
    String prefix = request.argument().value().toLowerCase(Locale.ROOT);
    List<String> candidates;
    switch (request.argument().name()) {
      case "table" -> candidates = visible.tables().stream().map(TableInfo::name).toList();
      case "column" -> {
        String table = request.context() == null ? null
            : request.context().arguments().get("table");
        Optional<TableInfo> chosen = visible.table(table);
        candidates = chosen.map(TableInfo::columnNames).orElse(List.of());
      }
      default -> candidates = List.of();
    }
    List<String> hits = candidates.stream()
        .filter(c -> c.toLowerCase(Locale.ROOT).startsWith(prefix)).sorted().toList();
    return new Completion(hits, hits.size(), hits.size() > Completion.MAX_VALUES);
  }
}
