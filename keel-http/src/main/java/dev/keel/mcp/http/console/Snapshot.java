package dev.keel.mcp.http.console;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ServerMetrics;
import dev.keel.mcp.server.ServerOperations;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** What the page shows, as one JSON document: built once a second and sent to every page. */
final class Snapshot {

  private static final Logger LOG = LoggerFactory.getLogger(Snapshot.class);
  /** The most rows of any one table: the page stays small whatever the server holds. */
  static final int MAX_ROWS = 200;

  private final McpServer server;
  private final McpJson json;
  private final List<Console.Panel> panels;
  private final ActionLog actions;

  Snapshot(McpServer server, List<Console.Panel> panels, ActionLog actions) {
    this.server = server;
    this.json = server.engine().codec().json();
    this.panels = panels;
    this.actions = actions;
  }

  ObjectNode build() {
    ServerOperations ops = server.operations();
    ObjectNode out = McpJson.object();
    out.put("at", System.currentTimeMillis());
    out.put("server", server.info().name() + " " + server.info().version());
    ServerMetrics m = server.metrics();
    out.putObject("totals").put("sessions", m.sessions()).put("inFlight", m.inFlightRequests())
        .put("listeningStreams", m.listeningStreams()).put("cancellations", m.cancellations())
        .put("runningTasks", m.runningTasks());
    out.set("sessions", rows(ops.sessions()));
    out.set("requests", rows(ops.requests()));
    out.set("tasks", rows(newestFirst(ops.tasks())));
    out.set("subscriptions", rows(ops.subscriptions()));
    ObjectNode errors = out.putObject("errors");
    ops.errorsByCode().forEach((code, n) -> errors.put(String.valueOf(code), n));
    out.set("samples", json.mapper().valueToTree(ops.samples()));
    out.set("actions", rows(newestFirst(actions.recent())));
    ArrayNode extra = out.putArray("panels");
    for (Console.Panel p : panels) {
      ObjectNode panel = extra.addObject().put("title", p.title());
      try {
        List<Map<String, Object>> rows = p.rows().get();
        panel.set("rows", rows(rows == null ? List.of() : rows));
      } catch (RuntimeException e) {
        LOG.warn("console panel {} failed", p.title(), e);
        panel.putArray("rows");
        panel.put("error", "this panel could not be read; see the server's log");
      }
    }
    return out;
  }

  private static <T> List<T> newestFirst(List<T> items) {
    List<T> copy = new java.util.ArrayList<>(items);
    java.util.Collections.reverse(copy);
    return copy;
  }

  private JsonNode rows(List<?> items) {
    List<?> shown = items.size() > MAX_ROWS ? items.subList(0, MAX_ROWS) : items;
    return json.mapper().valueToTree(shown);
  }
}
