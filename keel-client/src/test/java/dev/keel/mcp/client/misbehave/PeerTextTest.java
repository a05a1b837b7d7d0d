package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.Tool;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Text the server controls (error messages, schema text, status lines) is control-escaped and
 * capped wherever the client logs it or puts it in an exception message, and payloads (tool
 * arguments, results, stray answers) never reach the log at all.
 */
class PeerTextTest {

  /** Terminal escapes (CSI colour, OSC 52 clipboard write), a forged log line, then 10 KB. */
  static final String EVIL = "\u001b[31mred\u001b]52;c;cGF5bG9hZA==\u0007\r\n"
      + "[main] ERROR FORGED log line\n" + "A".repeat(10_000);
  /** The longest message a client exception may have when it quotes peer text. */
  static final int MAX_MESSAGE = 512;
  /** The longest log line allowed here (prefix, message, a few capped quotes). */
  static final int MAX_LOG_LINE = 1024;
  static final String PAYLOAD = "p4yl0ad";

  private FakeMcpServer server;
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = FakeMcpServer.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  /**
   * Asserts that the message of the exception, and of every Keel exception among its causes, is
   * safe to print. A JDK exception kept as a cause for diagnosis (the HTTP client's own
   * {@code ProtocolException} quotes a bad status line verbatim) is the JDK's text, not Keel's.
   */
  static void assertSafeMessages(Throwable thrown) {
    assertThat(thrown).isNotNull();
    List<String> problems = new ArrayList<>();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && (t == thrown || t.getClass().getName().startsWith("dev.keel."))) {
        problems.addAll(unsafe(t.getClass().getSimpleName() + " message", message,
            MAX_MESSAGE, true));
      }
    }
    assertThat(problems).as("unsafe peer text in exception messages").isEmpty();
  }

  /** Asserts that a captured log has no control sequences, no forged lines, no flood. */
  static void assertSafeLog(String log) {
    List<String> problems = new ArrayList<>();
    for (String line : log.split("\n")) {
      problems.addAll(unsafe("log line", line, MAX_LOG_LINE, false));
      if (line.startsWith("[main] ERROR FORGED")) {
        problems.add("a forged log line: " + Text.safe(line));
      }
    }
    assertThat(problems).as("unsafe peer text in the log").isEmpty();
  }

  /** Describes, briefly, what is unsafe about one message or log line. */
  private static List<String> unsafe(String what, String text, int max, boolean noTab) {
    List<String> problems = new ArrayList<>();
    if (text.length() > max) {
      problems.add(what + " of " + text.length() + " chars: " + Text.safe(text));
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c < 0x20 && !(c == '\t' && !noTab)) || c == 0x7f) {
        problems.add(what + " has control character " + (int) c + " at " + i + ": "
            + Text.safe(text));
        break;
      }
    }
    return problems;
  }

  private static String errorAnswer(String id) {
    ObjectNode error = McpJson.object();
    error.put("jsonrpc", "2.0");
    error.set("id", McpJson.standard().parse(id));
    error.putObject("error").put("code", -32603).put("message", EVIL);
    return error.toString();
  }

  @Test
  void inv61_serverErrorMessageIsEscapedAndCappedInTheException() {
    server.behave((request, ex) -> {
      if (request.is("tools/call") || request.is("test/fail")) {
        FakeMcpServer.json(ex, 200, errorAnswer(request.id()));
        return true;
      }
      if (request.is("test/failWithStatus")) {
        // a JSON-RPC error in the body of an HTTP error: the same text, another path
        FakeMcpServer.json(ex, 400, errorAnswer(request.id()));
        return true;
      }
      return false;
    });
    try (LogCapture log = new LogCapture(); McpClient client = Clients.legacy(server)) {
      Throwable call = catchThrowable(() -> client.callTool("echo", McpJson.object()));
      Throwable raw = catchThrowable(() -> client.request("test/fail", McpJson.object(),
          CallOptions.defaults()));
      Throwable status = catchThrowable(() -> client.request("test/failWithStatus",
          McpJson.object(), CallOptions.defaults()));

      for (Throwable thrown : List.of(call, raw, status)) {
        assertThat(thrown).isInstanceOfSatisfying(McpException.class,
            e -> assertThat(e.code()).isEqualTo(-32603));
        assertSafeMessages(thrown);
        // escaped, not dropped: the start of the server's text is still readable
        assertThat(thrown.getMessage().contains("\\u001b[31mred")).as("%s keeps the "
            + "escaped start of the server's text", Text.safe(thrown.getMessage())).isTrue();
      }
      assertSafeLog(log.text());
    }
  }

  @Test
  void inv61_schemaTextOfARefusedToolIsEscapedInTheLogAndTheException() {
    String tools = "{\"tools\":["
        + "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}},"
        // a header annotation on a property whose type is terminal escapes and 10 KB
        + "{\"name\":\"sneaky\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":"
        + "{\"type\":" + McpJson.standard().write(EVIL) + ",\"x-mcp-header\":\"A\"}}}},"
        // a 10 KB header name where no header may be
        + "{\"name\":\"long\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"l\":"
        + "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\""
        + "H".repeat(10_000) + "\"}}}}}]}";
    server.behave((request, ex) -> {
      if (request.is("tools/list")) {
        FakeMcpServer.json(ex, 200, FakeMcpServer.result(request.id(), tools));
        return true;
      }
      return false;
    });
    try (LogCapture log = new LogCapture(); McpClient client = Clients.legacy(server)) {
      List<Tool> usable = client.listTools();

      assertThat(usable).extracting(Tool::name).containsExactly("echo");
      assertThat(log.text()).contains("left out tool sneaky", "left out tool long");
      assertSafeLog(log.text());
      Throwable refused = catchThrowable(() -> client.callTool("sneaky", McpJson.object()));
      assertThat(refused).isInstanceOf(IllegalArgumentException.class);
      assertSafeMessages(refused);
      Throwable refusedLong = catchThrowable(() -> client.callTool("long", McpJson.object()));
      assertThat(refusedLong).isInstanceOf(IllegalArgumentException.class);
      assertSafeMessages(refusedLong);
    }
  }

  @Test
  void inv61_aToolWithAnInvalidNameIsLeftOutAndItsNameEscapedInTheLog() {
    server.behave((request, ex) -> {
      if (request.is("tools/list")) {
        ObjectNode result = McpJson.object();
        result.putArray("tools").addObject().put("name", EVIL).putObject("inputSchema")
            .put("type", "object");
        ((tools.jackson.databind.node.ArrayNode) result.get("tools")).addObject()
            .put("name", "fine").putObject("inputSchema").put("type", "object");
        FakeMcpServer.json(ex, 200, FakeMcpServer.result(request.id(), result.toString()));
        return true;
      }
      return false;
    });
    try (LogCapture log = new LogCapture(); McpClient client = Clients.legacy(server)) {
      List<Tool> tools = client.listTools();

      assertThat(tools).extracting(Tool::name).containsExactly("fine");
      assertThat(log.text()).contains("left out an entry of tools/list");
      assertSafeLog(log.text());
    }
  }

  @Test
  void inv61_malformedStatusLineTextIsEscapedInTransportErrors() throws Exception {
    String evilStatus = EVIL.replace("\r", "").replace("\n", " ");
    List<String> methods = new CopyOnWriteArrayList<>();
    RawHttpServer.Handler handler = (request, out) -> {
      String method = request.line().startsWith("POST")
          ? McpJson.standard().parse(request.body()).path("method").stringValue() : "GET";
      methods.add(method);
      if (method.equals("initialize")) {
        String id = McpJson.standard().parse(request.body()).get("id").toString();
        RawHttpServer.json(out, "Mcp-Session-Id: raw-1\r\n", FakeMcpServer.result(id,
            "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
            + "\"serverInfo\":{\"name\":\"raw\",\"version\":\"1\"}}"));
      } else if (method.equals("GET")) {
        out.write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
      } else if (method.equals("notifications/initialized") && methods.size() > 2) {
        out.write("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
      } else {
        // not HTTP at all: the JDK quotes this line in its exception
        out.write((evilStatus + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      }
    };
    try (LogCapture log = new LogCapture(); RawHttpServer raw = new RawHttpServer(handler)) {
      // the notification that completes the handshake is answered with garbage
      Throwable handshake = catchThrowable(() -> Clients.legacy(raw.endpoint(), b -> b));
      assertThat(handshake).isInstanceOf(TransportException.class);
      assertSafeMessages(handshake);

      // a request answered with garbage
      try (McpClient client = McpClient.builder(Clients.http(raw.endpoint()).build())
          .era(Era.LEGACY).connect()) {
        Throwable request = catchThrowable(() -> client.request("test/any", McpJson.object(),
            CallOptions.defaults()));
        assertThat(request).isInstanceOf(TransportException.class);
        assertSafeMessages(request);
      }
      assertSafeLog(log.text());
    }
  }

  @Test
  void inv61_payloadsNeverReachTheLog() throws Exception {
    CountDownLatch cancelled = new CountDownLatch(1);
    server.behave((request, ex) -> {
      if (request.is("notifications/cancelled")) {
        cancelled.countDown();
        return false;
      }
      if (request.is("tools/call")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          // a stray answer with a payload, a malformed message with a payload, a progress
          // report and a log notification with payloads, then the real result
          FakeMcpServer.event(out, FakeMcpServer.result("4242",
              "{\"content\":[{\"type\":\"text\",\"text\":\"" + PAYLOAD + "-stray\"}]}"));
          FakeMcpServer.event(out, "{\"jsonrpc\":\"1.0\",\"result\":\"" + PAYLOAD
              + "-malformed\"}");
          FakeMcpServer.event(out, "{\"" + PAYLOAD + "-not json");
          FakeMcpServer.event(out, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
              + "\"params\":{\"level\":\"error\",\"data\":\"" + PAYLOAD + "-log\"}}");
          FakeMcpServer.event(out, FakeMcpServer.result(request.id(),
              "{\"content\":[{\"type\":\"text\",\"text\":\"" + PAYLOAD + "-result\"}]}"));
        }
        return true;
      }
      if (request.is("test/late")) {
        // answered only after the client gave up and cancelled: the answer nobody waits for
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write(": waiting\n\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          cancelled.await(10, TimeUnit.SECONDS);
          FakeMcpServer.event(out, FakeMcpServer.result(request.id(),
              "{\"secret\":\"" + PAYLOAD + "-late\"}"));
        }
        return true;
      }
      if (request.is("test/error")) {
        ObjectNode error = McpJson.object().put("jsonrpc", "2.0");
        error.set("id", McpJson.standard().parse(request.id()));
        error.putObject("error").put("code", -32602).put("message", "bad")
            .put("data", PAYLOAD + "-error-data");
        FakeMcpServer.json(ex, 200, error.toString());
        return true;
      }
      return false;
    });
    try (LogCapture log = new LogCapture(); McpClient client = Clients.legacy(server)) {
      client.listTools();
      assertThat(client.callTool("echo", McpJson.object().put("secret", PAYLOAD + "-argument"))
          .content()).hasSize(1);
      assertThatThrownBy(() -> client.request("test/late",
          McpJson.object().put("secret", PAYLOAD + "-late-argument"),
          CallOptions.defaults().withTimeout(Duration.ofMillis(300))))
          .isInstanceOf(RequestTimeoutException.class);
      assertThatThrownBy(() -> client.request("test/error",
          McpJson.object().put("secret", PAYLOAD + "-error-argument"), CallOptions.defaults()))
          .isInstanceOf(McpException.class);
      // session expiry and recovery, with a payload in the re-sent request
      server.expire(client.transport().sessionId());
      client.request("resources/read", McpJson.object().put("uri", "file:///" + PAYLOAD),
          CallOptions.defaults());

      // the client did log about all of this, at debug (the late answer is never even read:
      // the timed-out request's stream was closed after its cancellation)...
      await().atMost(Duration.ofSeconds(10)).until(() -> cancelled.getCount() == 0);
      assertThat(log.text()).contains("discarded a response with an unsolicited id",
          "ignored a malformed message", "re-sending resources/read");
      // ...and never quoted a payload
      assertThat(log.text().contains(PAYLOAD)).as("a payload in the log").isFalse();
      assertSafeLog(log.text());
    }
  }
}
