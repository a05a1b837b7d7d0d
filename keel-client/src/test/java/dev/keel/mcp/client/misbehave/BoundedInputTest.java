package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What the server sends is bounded by the client, not by the server: an SSE event over
 * {@code maxEventBytes}, an event that never ends, a gzip body that expands past
 * {@code maxBodyBytes} and an absurd event id fail or are ignored without being buffered.
 */
class BoundedInputTest {

  private static final int MAX_EVENT = 64 * 1024;
  private static final long FIFTY_MB = 50L * 1024 * 1024;

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

  /** Writes a chunk again and again, counting, until {@code total} or the client hangs up. */
  static final class Pump {
    final AtomicLong written = new AtomicLong();
    final AtomicReference<String> outcome = new AtomicReference<>();

    void run(OutputStream out, byte[] chunk, long total) {
      try {
        while (written.get() < total) {
          out.write(chunk);
          written.addAndGet(chunk.length);
        }
        out.flush();
        outcome.set("finished");
      } catch (IOException e) {
        outcome.set("client hung up");
      }
    }
  }

  private McpClient client(long maxBody) {
    return Clients.legacy(server.endpoint(), b -> b.maxEventBytes(MAX_EVENT)
        .maxBodyBytes(maxBody));
  }

  private static JsonNode call(McpClient client, String method) {
    return client.request(method, McpJson.object(), CallOptions.defaults());
  }

  @Test
  void inv59_sseEventWithoutLineBreakOverTheLimitFailsBeforeTheServerFinishes() {
    Pump pump = new Pump();
    byte[] chunk = new byte[64 * 1024];
    Arrays.fill(chunk, (byte) 'x');
    server.behave((request, ex) -> {
      if (request.is("test/huge")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write("data: ".getBytes(StandardCharsets.US_ASCII));
          pump.run(out, chunk, FIFTY_MB);
        }
        return true;
      }
      return false;
    });
    try (McpClient client = client(1 << 20)) {
      assertThatThrownBy(() -> call(client, "test/huge"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("exceeded " + MAX_EVENT);
      long writtenWhenFailed = pump.written.get();

      assertThat(writtenWhenFailed).isLessThan(FIFTY_MB);
      // and the client let go of the stream instead of draining it
      await().atMost(Duration.ofSeconds(20)).until(() -> pump.outcome.get() != null);
      assertThat(pump.outcome.get()).isEqualTo("client hung up");
      assertThat(pump.written.get()).isLessThan(FIFTY_MB);
      client.ping();
    }
  }

  @Test
  void inv59_sseEventOfManyShortLinesOverTheLimitFailsBeforeTheServerFinishes() {
    Pump pump = new Pump();
    byte[] chunk = "data: xxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(2048)
        .getBytes(StandardCharsets.US_ASCII);
    server.behave((request, ex) -> {
      if (request.is("test/huge")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          pump.run(out, chunk, FIFTY_MB);
        }
        return true;
      }
      return false;
    });
    try (McpClient client = client(1 << 20)) {
      assertThatThrownBy(() -> call(client, "test/huge"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("exceeded " + MAX_EVENT);

      assertThat(pump.written.get()).isLessThan(FIFTY_MB);
      await().atMost(Duration.ofSeconds(20)).until(() -> pump.outcome.get() != null);
      assertThat(pump.outcome.get()).isEqualTo("client hung up");
    }
  }

  @Test
  void inv59_unterminatedEventIsNeverDelivered() {
    server.behave((request, ex) -> {
      String answer = request.method() == null ? null
          : FakeMcpServer.result(request.id(), "{\"who\":\"unterminated\"}");
      if (request.is("test/noBlankLine")) {
        // the answer's line ends, the event does not: the stream closes first
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write(("data: " + answer + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return true;
      }
      if (request.is("test/noLineEnd")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write(("data: " + answer).getBytes(StandardCharsets.UTF_8));
        }
        return true;
      }
      if (request.is("test/heldOpen")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write(("data: " + answer + "\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
          release.await(30, TimeUnit.SECONDS);
        }
        return true;
      }
      return false;
    });
    try (McpClient client = client(1 << 20)) {
      assertThatThrownBy(() -> call(client, "test/noBlankLine"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("ended before the answer");
      assertThatThrownBy(() -> call(client, "test/noLineEnd"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("ended before the answer");
      assertThatThrownBy(() -> client.request("test/heldOpen", McpJson.object(),
          CallOptions.defaults().withTimeout(Duration.ofMillis(500))))
          .isInstanceOf(RequestTimeoutException.class);
    }
  }

  @Test
  void inv59_gzipBombJsonBodyIsRefusedAtTheBodyLimit() {
    AtomicLong compressedSize = new AtomicLong();
    server.behave((request, ex) -> {
      if (request.is("test/bomb")) {
        byte[] bomb = gzipBomb(request.id(), 64L * 1024 * 1024);
        compressedSize.set(bomb.length);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.getResponseHeaders().set("Content-Encoding", "gzip");
        ex.sendResponseHeaders(200, bomb.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(bomb);
        }
        return true;
      }
      return false;
    });
    try (McpClient client = client(1 << 20)) {
      assertThatThrownBy(() -> call(client, "test/bomb"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("exceeded " + (1 << 20));
      // a body well under the limit on the wire: only the decompressed size gave it away
      assertThat(compressedSize.get()).isLessThan(1 << 20);
      client.ping();
    }
  }

  @Test
  void inv59_endlessGzipEventStreamFailsAtTheEventLimit() {
    Pump pump = new Pump();
    byte[] chunk = new byte[64 * 1024];
    Arrays.fill(chunk, (byte) 'x');
    long safety = 4L * 1024 * 1024 * 1024;
    server.behave((request, ex) -> {
      if (request.is("test/bomb")) {
        ex.getResponseHeaders().set("Content-Encoding", "gzip");
        try (OutputStream out = new GZIPOutputStream(FakeMcpServer.sse(ex), 8192, true)) {
          out.write("data: ".getBytes(StandardCharsets.US_ASCII));
          pump.run(out, chunk, safety);
        } catch (IOException e) {
          // the client hung up while the trailer was written
        }
        return true;
      }
      return false;
    });
    try (McpClient client = client(1 << 20)) {
      assertThatThrownBy(() -> call(client, "test/bomb"))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("exceeded " + MAX_EVENT);
      assertThat(pump.written.get()).isLessThan(safety);
    }
  }

  @Test
  void inv59_overlongOrUnprintableEventIdIsNeverUsedAsTheResumptionCursor() {
    List<String> notes = new CopyOnWriteArrayList<>();
    String longId = "i".repeat(10_000);
    server.behave((request, ex) -> {
      if (request.is("test/resumable")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          out.write(("retry: 10\nid: ok-1\ndata: " + note("one") + "\n\n"
              + "id: " + longId + "\ndata: " + note("two") + "\n\n"
              + "id: bad\u001b[31mred\ndata: " + note("three") + "\n\n")
              .getBytes(StandardCharsets.UTF_8));
        }
        // the stream closed with no answer: the client resumes with GET and Last-Event-ID
        return true;
      }
      if (request.verb().equals("GET") && request.lastEventId() != null) {
        String original = server.seen("test/resumable").get(0).id();
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          FakeMcpServer.event(out, FakeMcpServer.result(original, "{\"who\":\"resumed\"}"));
        }
        return true;
      }
      return false;
    });
    McpClient client = McpClient.builder(Clients.http(server.endpoint()).build())
        .era(Era.LEGACY)
        .requestTimeout(Duration.ofSeconds(20))
        .notifications((method, params) -> notes.add(params.path("data").stringValue()))
        .connect();
    try (client) {
      JsonNode result = call(client, "test/resumable");

      assertThat(result.path("who").stringValue()).isEqualTo("resumed");
      assertThat(notes).containsExactly("one", "two", "three");
      assertThat(server.seen()).filteredOn(s -> s.lastEventId() != null)
          .extracting(FakeMcpServer.Seen::lastEventId).containsExactly("ok-1");
    }
  }

  private static String note(String data) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
        + "{\"level\":\"info\",\"data\":\"" + data + "\"}}";
  }

  /** A valid JSON-RPC answer whose string member pads it to {@code size} when decompressed. */
  private static byte[] gzipBomb(String id, long size) throws IOException {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(compressed, 1 << 16)) {
      gz.write(("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"pad\":\"")
          .getBytes(StandardCharsets.UTF_8));
      byte[] block = new byte[1 << 20];
      Arrays.fill(block, (byte) 'a');
      for (long n = 0; n < size; n += block.length) {
        gz.write(block);
      }
      gz.write("\"}}".getBytes(StandardCharsets.UTF_8));
    }
    return compressed.toByteArray();
  }
}
