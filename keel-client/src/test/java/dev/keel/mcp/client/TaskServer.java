package dev.keel.mcp.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A stateless (2026-07-28) server with the tasks extension that answers from a script: what a
 * test needs to make a server reuse a task id, hold an update past the client's timeout, or
 * refuse answers. It records every request it receives.
 */
final class TaskServer implements AutoCloseable {

  /** One received request: method and params. */
  record Received(String method, ObjectNode params) {
    String taskId() {
      return params.path("taskId").asString("");
    }
  }

  final List<Received> received = new CopyOnWriteArrayList<>();
  volatile String nextTaskId = "task-1";
  volatile Function<ObjectNode, JsonNode> onGet = p -> task(p.path("taskId").asString(),
      "working");
  volatile Function<ObjectNode, JsonNode> onUpdate = p -> McpJson.object();
  private final HttpServer http;

  TaskServer() throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.setExecutor(Executors.newCachedThreadPool());
    http.createContext("/mcp", this::handle);
    http.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp");
  }

  static ObjectNode task(String id, String status) {
    ObjectNode t = McpJson.object().put("taskId", id).put("status", status)
        .put("createdAt", "2026-11-30T00:00:00Z").put("lastUpdatedAt", "2026-11-30T00:00:00Z")
        .put("ttlMs", 60_000).put("pollIntervalMs", 50);
    return t;
  }

  /** The error a scripted answer throws to make the server answer with a JSON-RPC error. */
  static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int code;

    Refusal(int code, String message) {
      super(message);
      this.code = code;
    }
  }

  List<Received> calls(String method) {
    return received.stream().filter(r -> r.method().equals(method)).toList();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("POST")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      ObjectNode body = McpJson.standard().parseObject(
          new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      String method = body.path("method").asString();
      ObjectNode params = body.get("params") instanceof ObjectNode p ? p : McpJson.object();
      if (!body.has("id")) {
        exchange.sendResponseHeaders(202, -1);
        return;
      }
      received.add(new Received(method, params));
      ObjectNode response = McpJson.object().put("jsonrpc", "2.0");
      response.set("id", body.get("id"));
      try {
        JsonNode result = switch (method) {
          case "server/discover" -> McpJson.standard().parse("{\"supportedVersions\":"
              + "[\"2026-07-28\"],\"capabilities\":{\"tools\":{},\"extensions\":"
              + "{\"io.modelcontextprotocol/tasks\":{}}},\"serverInfo\":{\"name\":\"tasks\","
              + "\"version\":\"1\"}}");
          case "tools/list" -> McpJson.standard().parse("{\"tools\":[{\"name\":\"job\","
              + "\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":"
              + "\"optional\"}}]}");
          case "tools/call" -> task(nextTaskId, "working").put("resultType", "task");
          case "tasks/get" -> onGet.apply(params);
          case "tasks/update" -> onUpdate.apply(params);
          case "tasks/cancel" -> McpJson.object();
          default -> throw new Refusal(-32601, "Method not found");
        };
        if (result instanceof ObjectNode o && !o.has("resultType")) {
          o.put("resultType", "complete");
        }
        response.set("result", result);
      } catch (Refusal r) {
        response.putObject("error").put("code", r.code).put("message", r.getMessage());
      }
      byte[] bytes = McpJson.standard().write(response).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
