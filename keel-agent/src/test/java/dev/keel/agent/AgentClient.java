package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * A small MCP client over the JDK HttpClient for tests that drive the agent over real HTTP:
 * legacy sessions (initialize, requests, cancellation, elicitation replies) and stateless
 * 2026-07-28 requests. Responses may come as plain JSON or as the last event of an SSE stream.
 */
final class AgentClient {

  static final String MODERN = "2026-07-28";

  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final URI endpoint;
  final String bearer;
  final AtomicLong ids = new AtomicLong(100);
  String session;

  AgentClient(URI endpoint, String bearer) {
    this.endpoint = endpoint;
    this.bearer = bearer;
  }

  /** Opens a legacy session declaring {@code capabilities}; returns this client. */
  AgentClient initialize(String capabilities) {
    HttpResponse<String> r = post(null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":" + capabilities
        + ",\"clientInfo\":{\"name\":\"keel-agent-test\",\"version\":\"1\"}}}", null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> ack = post(session,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", null);
    assertThat(ack.statusCode()).isEqualTo(202);
    return this;
  }

  AgentClient initialize() {
    return initialize("{}");
  }

  /** Sends a request in the session and returns the JSON-RPC response. */
  JsonNode request(String method, String params) {
    long id = ids.incrementAndGet();
    HttpResponse<String> r = post(session, body(id, method, params), null);
    assertThat(r.statusCode()).as("%s: %s", method, r.body()).isEqualTo(200);
    return responseOf(r.body(), id);
  }

  /** Calls a tool and returns its result (failing the test on a protocol error). */
  JsonNode call(String tool, String arguments) {
    JsonNode response = request("tools/call", callParams(tool, arguments));
    assertThat(response.has("result")).as("tools/call %s: %s", tool, response).isTrue();
    return response.get("result");
  }

  /** Calls a tool and returns the whole JSON-RPC response as text. */
  String callText(String tool, String arguments) {
    return request("tools/call", callParams(tool, arguments)).toString();
  }

  /** Starts a tool call with a chosen id and returns its pending HTTP response. */
  CompletableFuture<HttpResponse<String>> callAsync(long id, String tool, String arguments) {
    return http.sendAsync(request(session, body(id, "tools/call", callParams(tool, arguments)),
        null), HttpResponse.BodyHandlers.ofString());
  }

  /** Sends {@code notifications/cancelled} for a request of this session. */
  int cancel(long id) {
    return post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
        + "\"params\":{\"requestId\":" + id + ",\"reason\":\"test\"}}", null).statusCode();
  }

  /**
   * Calls a tool that asks for approval: reads its stream until the elicitation arrives,
   * answers it with {@code reply} (given the elicitation request), and returns the call's
   * result.
   */
  JsonNode callAnswering(String tool, String arguments, Function<JsonNode, String> reply) {
    long id = ids.incrementAndGet();
    HttpResponse<Stream<String>> r;
    try {
      r = http.send(request(session, body(id, "tools/call", callParams(tool, arguments)), null),
          HttpResponse.BodyHandlers.ofLines());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    Iterator<String> lines = r.body().iterator();
    StringBuilder data = new StringBuilder();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("{")) {
        // answered as plain JSON: nothing was asked
        return McpJson.standard().parse(line).get("result");
      }
      if (line.startsWith("data:")) {
        data.append(line.substring(5).strip());
        continue;
      }
      if (!line.isBlank() || data.length() == 0) {
        continue;
      }
      JsonNode message = McpJson.standard().parse(data.toString());
      data.setLength(0);
      if ("elicitation/create".equals(message.path("method").asString(""))) {
        HttpResponse<String> answer = post(session, "{\"jsonrpc\":\"2.0\",\"id\":"
            + message.get("id") + ",\"result\":" + reply.apply(message) + "}", null);
        assertThat(answer.statusCode()).isEqualTo(202);
      } else if (message.has("id") && message.get("id").asLong() == id
          && (message.has("result") || message.has("error"))) {
        assertThat(message.has("result")).as(message.toString()).isTrue();
        return message.get("result");
      }
    }
    throw new AssertionError("the stream ended without a response");
  }

  /** Sends a stateless (2026-07-28) request and returns the JSON-RPC response. */
  JsonNode modern(String method, String name, String params) {
    long id = ids.incrementAndGet();
    String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + MODERN
        + "\",\"io.modelcontextprotocol/clientCapabilities\":{}}";
    String p = params == null || params.equals("{}") ? "{" + meta + "}"
        : params.substring(0, params.lastIndexOf('}')) + "," + meta + "}";
    List<String> headers = new ArrayList<>(List.of("MCP-Protocol-Version", MODERN,
        "Mcp-Method", method));
    if (name != null) {
      headers.addAll(List.of("Mcp-Name", name));
    }
    HttpResponse<String> r = post(null, body(id, method, p), headers);
    assertThat(r.statusCode()).as("%s: %s", method, r.body()).isEqualTo(200);
    return responseOf(r.body(), id);
  }

  HttpResponse<String> post(String sessionId, String body, List<String> headers) {
    try {
      return http.send(request(sessionId, body, headers), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest request(String sessionId, String body, List<String> headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    if (sessionId != null) {
      b.header("Mcp-Session-Id", sessionId);
    }
    if (headers != null) {
      for (int i = 0; i < headers.size(); i += 2) {
        if (headers.get(i + 1) != null) {
          b.header(headers.get(i), headers.get(i + 1));
        }
      }
    }
    return b.build();
  }

  static String body(long id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
        + (params == null ? "" : ",\"params\":" + params) + "}";
  }

  static String callParams(String tool, String arguments) {
    return "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}";
  }

  /** Finds the response with {@code id} in a JSON body or an SSE stream. */
  static JsonNode responseOf(String body, long id) {
    String trimmed = body.strip();
    if (trimmed.startsWith("{")) {
      return McpJson.standard().parse(trimmed);
    }
    for (JsonNode message : events(body)) {
      if (message.has("id") && message.get("id").asLong() == id
          && (message.has("result") || message.has("error"))) {
        return message;
      }
    }
    throw new AssertionError("no response with id " + id + " in: " + body);
  }

  /** Returns the JSON messages of an SSE body. */
  static List<JsonNode> events(String body) {
    List<JsonNode> messages = new ArrayList<>();
    StringBuilder data = new StringBuilder();
    for (String line : (body + "\n\n").split("\n", -1)) {
      if (line.startsWith("data:")) {
        data.append(line.substring(5).strip());
      } else if (line.isBlank() && data.length() > 0) {
        messages.add(McpJson.standard().parse(data.toString()));
        data.setLength(0);
      }
    }
    return messages;
  }

  /** The structured content of a tool result. */
  static JsonNode structured(JsonNode result) {
    assertThat(result.path("isError").asBoolean(false)).as("tool error: %s", result).isFalse();
    return result.get("structuredContent");
  }

  /** The text of a tool error. */
  static String error(JsonNode result) {
    assertThat(result.path("isError").asBoolean(false)).as("expected a tool error: %s", result)
        .isTrue();
    return result.get("content").get(0).get("text").asString();
  }
}
