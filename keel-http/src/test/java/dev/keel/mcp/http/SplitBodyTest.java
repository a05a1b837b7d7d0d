package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * Bodies that come in pieces, after their head (issue 14, finding 8): they are read in servlet
 * async mode as they arrive, and then every kind of request goes on exactly as one whose body
 * came with its head: a non-blocking tool answered on the container thread, one that streams
 * progress (the exchange takes the read's async context over), a handed-off tool, a call slow
 * enough to turn into SSE, a notification, a stateless request, and the connection stays usable
 * for the next request.
 */
class SplitBodyTest {

  static McpServer server;
  static McpHttpServer http;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("quick").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> CallToolResult.text("quick " + args.path("n").asString("")))
        .tool(Tool.builder("counting").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              for (int i = 1; i <= 3; i++) {
                ctx.progress(i, 3.0, "step " + i);
              }
              return CallToolResult.text("counted");
            })
        .tool(Tool.builder("ordinary").build(), (ctx, args) -> CallToolResult.text("ordinary"))
        .tool(Tool.builder("slow").build(), (ctx, args) -> {
          Thread.sleep(400);
          return CallToolResult.text("slow");
        })
        .build();
    http = McpHttpServer.builder(server).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  /** One keep-alive connection that sends each body in three pieces, 50 ms apart. */
  static final class Connection implements AutoCloseable {
    final Socket socket = new Socket();
    final RawHttp reader;
    final OutputStream out;

    Connection() throws IOException {
      socket.connect(new InetSocketAddress("127.0.0.1", http.port()), 5000);
      socket.setSoTimeout(10_000);
      out = socket.getOutputStream();
      reader = RawHttp.over(socket);
    }

    RawHttp.Response post(String session, String extraHeaders, String body) throws Exception {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + http.port() + "\r\n"
          + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
          + (session == null ? "" : "Mcp-Session-Id: " + session + "\r\n") + extraHeaders
          + "Content-Length: " + bytes.length + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.UTF_8));
      out.flush();
      int third = bytes.length / 3;
      for (int[] piece : new int[][] {{0, third}, {third, 2 * third},
          {2 * third, bytes.length}}) {
        Thread.sleep(50);
        out.write(bytes, piece[0], piece[1] - piece[0]);
        out.flush();
      }
      return reader.readResponse(Long.MAX_VALUE);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  static String call(int id, String tool, String extra) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"" + tool + "\",\"arguments\":{\"n\":\"" + id + "\"}" + extra + "}}";
  }

  /** The last JSON-RPC message of a plain or SSE answer. */
  static JsonNode last(RawHttp.Response r) {
    return TaskTools.message(r);
  }

  @Test
  void everyKindOfRequestWorksWhenItsBodyComesInPieces() throws Exception {
    try (Connection c = new Connection()) {
      RawHttp.Response init = c.post(null, "", HttpGateTest.INIT);
      assertThat(init.status()).isEqualTo(200);
      String session = init.header("mcp-session-id");
      assertThat(session).isNotBlank();
      assertThat(c.post(session, "", "{\"jsonrpc\":\"2.0\",\"method\":"
          + "\"notifications/initialized\"}").status()).isEqualTo(202);

      RawHttp.Response quick = c.post(session, "", call(3, "quick", ""));
      assertThat(quick.header("content-type")).startsWith("application/json");
      assertThat(last(quick).at("/result/content/0/text").asString()).isEqualTo("quick 3");

      RawHttp.Response counting = c.post(session, "",
          call(4, "counting", ",\"_meta\":{\"progressToken\":\"p\"}"));
      assertThat(counting.header("content-type")).startsWith("text/event-stream");
      List<String> progress = new ArrayList<>();
      for (String line : counting.body().split("\n")) {
        if (line.contains("notifications/progress")) {
          progress.add(line);
        }
      }
      assertThat(progress).hasSize(3);
      assertThat(last(counting).at("/result/content/0/text").asString()).isEqualTo("counted");

      RawHttp.Response ordinary = c.post(session, "", call(5, "ordinary", ""));
      assertThat(last(ordinary).at("/result/content/0/text").asString()).isEqualTo("ordinary");

      RawHttp.Response slow = c.post(session, "", call(6, "slow", ""));
      assertThat(slow.header("content-type")).startsWith("text/event-stream");
      assertThat(last(slow).at("/result/content/0/text").asString()).isEqualTo("slow");

      String meta = ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
      RawHttp.Response modern = c.post(null, "MCP-Protocol-Version: 2026-07-28\r\n"
          + "Mcp-Method: tools/call\r\nMcp-Name: quick\r\n", call(7, "quick", meta));
      assertThat(McpJson.standard().parse(modern.body()).at("/result/resultType").asString())
          .isEqualTo("complete");

      RawHttp.Response bad = c.post(session, "", "{\"jsonrpc\":\"2.0\",\"id\":8,");
      assertThat(bad.status()).isEqualTo(400);
      // Still the same connection: every answer above kept it open.
      RawHttp.Response ping = c.post(session, "", "{\"jsonrpc\":\"2.0\",\"id\":9,"
          + "\"method\":\"ping\"}");
      assertThat(ping.status()).isEqualTo(200);
    }
    assertThat(http.servlet().openStreams()).isZero();
  }

  /**
   * A request refused on its head alone, before any byte of its body came: the body is never
   * read, so the connection cannot carry another request, and the answer must say so. Without
   * {@code Connection: close} Jetty still closes it, just after an answer that looked
   * reusable: a client that pooled the connection sends its next request into the close and
   * reads end-of-stream before any byte of an answer (the JDK's "header parser received no
   * bytes"). Each refusal made before the body is read on a server without authentication (the
   * common gates', the content type, the declared length), and a GET, whose body is never read
   * even when it is answered. A row's headers replace the defaults of the same name.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "403 origin not allowed           | POST /mcp     | Origin: http://evil.example",
      "404 another path                 | POST /elsewhere |",
      "405 a method MCP has no use for  | PUT /mcp      |",
      "415 not JSON                     | POST /mcp     | Content-Type: text/plain",
      "413 declared past the limit      | POST /mcp     | Content-Length: 99999999",
      "200 health, asked with a body    | GET /health   |"})
  void anAnswerBeforeTheBodyArrivedClosesTheConnectionAndSaysSo(String answer, String request,
      String rowHeaders) throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Host", "127.0.0.1:" + http.port());
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json, text/event-stream");
    headers.put("Content-Length", "100");
    if (rowHeaders != null) {
      for (String h : rowHeaders.split(";")) {
        headers.put(h.substring(0, h.indexOf(':')).trim(), h.substring(h.indexOf(':') + 1).trim());
      }
    }
    StringBuilder head = new StringBuilder(request).append(" HTTP/1.1\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    try (Connection c = new Connection()) {
      c.out.write(head.append("\r\n").toString().getBytes(StandardCharsets.UTF_8));
      c.out.flush();
      // the body never comes: the answer is made on the head
      RawHttp.Response r = c.reader.readResponse(Long.MAX_VALUE);
      assertThat(r.status()).as(answer).isEqualTo(Integer.parseInt(answer.substring(0, 3)));
      assertThat(r.header("connection")).as("the Connection header of: " + answer)
          .isEqualTo("close");
      assertThat(c.socket.getInputStream().read()).as("the server closed the connection")
          .isEqualTo(-1);
    }
  }

  @Test
  void aClientThatLeavesHalfWayThroughItsBodyLeavesNothingBehind() throws Exception {
    for (int i = 0; i < 20; i++) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", http.port()), 5000);
        s.getOutputStream().write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\":"
            + "x".repeat(40_000))
            .getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
        Thread.sleep(10);
      }
    }
    // The server still serves, and nothing of the abandoned reads is left open.
    try (Connection c = new Connection()) {
      assertThat(c.post(null, "", HttpGateTest.INIT).status()).isEqualTo(200);
    }
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
        .until(() -> http.servlet().bufferedBodyBytes() == 0);
    assertThat(http.servlet().openStreams()).isZero();
  }
}
