package dev.keel.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The driver's response parser, fed the way a socket feeds it: in arbitrary pieces. */
class ResponseParserTest {

  static final String CHUNKED_SSE = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      + "Transfer-Encoding: chunked\r\nMcp-Session-Id: abc\r\n\r\n"
      + "1c\r\nevent: message\ndata: {\"id\":1\r\n"
      + "f\r\n,\"result\":{}}\n\n\r\n0\r\n\r\n";
  static final String NEXT = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";

  @Test
  void aChunkedEventStreamSplitAnywhereParsesToTheSameBodyAndLeavesTheNextResponse() {
    byte[] all = (CHUNKED_SSE + NEXT).getBytes(StandardCharsets.US_ASCII);
    for (int piece = 1; piece <= all.length; piece++) {
      ResponseParser parser = new ResponseParser();
      ByteBuffer in = ByteBuffer.allocate(all.length);
      int offset = 0;
      boolean done = false;
      while (!done) {
        int n = Math.min(piece, all.length - offset);
        in.put(all, offset, n);
        offset += n;
        in.flip();
        done = parser.feed(in);
        in.compact();
      }
      assertThat(parser.status()).isEqualTo(200);
      assertThat(parser.eventStream()).isTrue();
      assertThat(parser.sessionId()).isEqualTo("abc");
      assertThat(parser.bodyText()).isEqualTo("event: message\ndata: {\"id\":1,\"result\":{}}\n\n");
      assertThat(parser.failed()).isFalse();
      in.put(all, offset, all.length - offset);
      in.flip();
      parser.reset();
      assertThat(parser.feed(in)).as("piece size %d", piece).isTrue();
      assertThat(parser.status()).isEqualTo(202);
    }
  }

  @Test
  void errorsAreJsonRpcErrorsToolErrorsAndNon2xxStatuses() {
    assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n"
        + "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602}}  ").failed()).isTrue();
    assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 27\r\n\r\n"
        + "{\"result\":{\"isError\":true}}").failed()).isTrue();
    assertThat(parse("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n").failed()).isTrue();
    assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 28\r\n\r\n"
        + "{\"result\":{\"isError\":false}}").failed()).isFalse();
  }

  @Test
  void aBodyWithoutLengthEndsWithTheConnection() {
    ResponseParser parser = new ResponseParser();
    ByteBuffer in = ByteBuffer.wrap("HTTP/1.1 200 OK\r\n\r\npartial"
        .getBytes(StandardCharsets.US_ASCII));
    assertThat(parser.feed(in)).isFalse();
    assertThat(parser.endOfStream()).isTrue();
    assertThat(parser.closeAfter()).isTrue();
    assertThat(parser.bodyText()).isEqualTo("partial");
  }

  @Test
  void heapInUseAddsEveryGenerationAndSkipsMetaspace() {
    String serial = "1234:\n def new generation   total 9792K, used 512K [0x1, 0x2)\n"
        + "  eden space 8704K,   5% used [0x1, 0x2)\n"
        + " tenured generation   total 21888K, used 10240K [0x3, 0x4)\n"
        + " Metaspace       used 30000K, committed 30500K, reserved 1114112K\n"
        + "  class space    used 3000K, committed 3200K, reserved 1048576K\n";
    assertThat(ServerMemory.heapUsed(serial)).isEqualTo((512 + 10240) * 1024L);
    String g1 = "1234:\n garbage-first heap   total 262144K, used 20480K [0x1, 0x2)\n"
        + " Metaspace       used 30000K, committed 30500K, reserved 1114112K\n";
    assertThat(ServerMemory.heapUsed(g1)).isEqualTo(20480 * 1024L);
    assertThat(ServerMemory.heapUsed("1234:\nAttachNotSupportedException")).isEqualTo(-1);
  }

  private static ResponseParser parse(String response) {
    ResponseParser parser = new ResponseParser();
    assertThat(parser.feed(ByteBuffer.wrap(response.getBytes(StandardCharsets.US_ASCII))))
        .isTrue();
    return parser;
  }
}
