package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 14, finding 11: the refusals Jetty makes itself, before the servlet runs (ambiguous
 * URIs, malformed requests, headers too large), are plain JSON-RPC error objects like every
 * other refusal, and no response names the server or echoes the request.
 */
class ContainerErrorsTest {

  static McpServer server;
  static McpHttpServer http;
  /** A server whose servlet lets an error escape, so that Jetty answers 500 itself. */
  static McpHttpServer failing;

  @BeforeAll
  static void start() {
    server = McpServer.builder().build();
    http = McpHttpServer.builder(server).port(0).start();
    failing = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.fingerprintResolver((req, principal) -> {
          throw new AssertionError("secret-detail of a failure");
        }))
        .start();
  }

  @AfterAll
  static void stop() {
    failing.close();
    http.close();
    server.close();
  }

  static String post(String target, String extraHeaders) {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + http.port() + "\r\n"
        + "Content-Type: application/json\r\nAccept: application/json, text/html\r\n"
        + "Connection: close\r\n" + extraHeaders + "Content-Length: " + body.length()
        + "\r\n\r\n" + body;
  }

  /** Sends raw request text and reads what comes back. */
  static RawHttp.Response raw(String request) throws IOException {
    try (RawHttp connection = new RawHttp(http.port())) {
      connection.send(request);
      return connection.readResponse(64 * 1024);
    }
  }

  /** Returns what is wrong with a refusal, or an empty list. */
  static List<String> problems(String what, String echoed, RawHttp.Response r) {
    List<String> problems = new ArrayList<>();
    String body = r.body();
    if (r.status() < 400) {
      problems.add(what + ": status " + r.status());
    }
    if (r.header("server") != null || r.header("x-powered-by") != null) {
      problems.add(what + ": names the server: " + r.headers());
    }
    String lower = body.toLowerCase(Locale.ROOT);
    if (lower.contains("jetty") || lower.contains("<html") || lower.contains("powered")) {
      problems.add(what + ": an HTML or named error page: " + body);
    }
    if (echoed != null && body.contains(echoed)) {
      problems.add(what + ": echoes the request (" + echoed + "): " + body);
    }
    String type = r.header("content-type");
    if (type == null || !type.startsWith("application/json")) {
      problems.add(what + ": content type " + type);
    }
    try {
      JsonNode tree = McpJson.standard().parse(body);
      JsonNode error = tree.get("error");
      if (!"2.0".equals(tree.path("jsonrpc").asString("")) || !tree.has("id")
          || !tree.get("id").isNull() || error == null || !error.path("code").isInt()
          || !error.path("message").isString()) {
        problems.add(what + ": not a JSON-RPC error object: " + body);
      }
    } catch (RuntimeException e) {
      problems.add(what + ": not JSON: " + body);
    }
    return problems;
  }

  @Test
  void refusalsJettyMakesItselfAreJsonRpcErrorsThatEchoNothingAndNameNoServer()
      throws IOException {
    List<String> problems = new ArrayList<>();
    String[][] targets = {{"//mcp", "//mcp"}, {"/mcp%2F", "%2F"}, {"/mcp/..%2F", "..%2F"},
        {"/mcp%2f..%2f", "%2f"}, {"/%2e%2e/mcp", "%2e"}, {"/mcp%zz", "%zz"},
        {"/mcp/%00", "%00"}, {"/mcp;jsessionid=x", "jsessionid"}, {"/nope-secret", "secret"}};
    for (String[] target : targets) {
      problems.addAll(problems("POST " + target[0], target[1], raw(post(target[0], ""))));
    }
    problems.addAll(problems("a header too large", "AAAA",
        raw(post("/mcp", "X-Big: " + "A".repeat(64 * 1024) + "\r\n"))));
    problems.addAll(problems("a malformed request line", "GARBAGE",
        raw("GARBAGE-secret\r\n\r\n")));
    problems.addAll(problems("an unknown HTTP version", "HTTP/9",
        raw("GET /mcp HTTP/9.9\r\nHost: x\r\n\r\n")));
    problems.addAll(problems("a malformed header line", "Bad-Line",
        raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nBad-Line-secret\r\n\r\n")));
    problems.addAll(problems("a bad Content-Length", "zz",
        raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: zz\r\n\r\n")));
    problems.addAll(problems("a method Jetty does not know on a bad target", "%zz",
        raw("BREW /mcp%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")));
    problems.addAll(problems("a URI too long", "aaaa",
        raw(post("/mcp?" + "a".repeat(64 * 1024), ""))));
    RawHttp.Response failure = RawHttp.exchange(failing.port(), "POST", "/mcp",
        Map.of("Content-Type", "application/json", "Accept", "text/html"), HttpGateTest.INIT);
    assertThat(failure.status()).isEqualTo(500);
    problems.addAll(problems("a failure the servlet let escape", "secret", failure));
    assertThat(failure.body()).doesNotContain("AssertionError");
    assertThat(problems).isEmpty();
  }

  @Test
  void answersTheServletGivesNameNoServerEither() throws IOException {
    List<RawHttp.Response> answers = List.of(
        RawHttp.exchange(http.port(), "GET", "/health", Map.of(), null),
        RawHttp.exchange(http.port(), "POST", "/mcp", Map.of("Content-Type", "application/json",
            "Accept", "application/json"), HttpGateTest.INIT),
        RawHttp.exchange(http.port(), "PUT", "/mcp", Map.of(), "x"));
    for (RawHttp.Response r : answers) {
      assertThat(r.header("server")).as("Server header of a %d", r.status()).isNull();
      assertThat(r.header("x-powered-by")).isNull();
    }
    assertThat(answers.get(0).status()).isEqualTo(200);
    assertThat(answers.get(1).status()).isEqualTo(200);
    assertThat(answers.get(2).status()).isEqualTo(405);
  }
}
