package dev.keel.mcp.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.keel.mcp.client.TransportException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the client's SSE parser, which reads whatever an untrusted server sends, against a
 * model written from the event-stream rules (lines ended by CR, LF or CRLF; data lines joined by
 * LF; an event dispatched at a blank line when it has data; ids kept only when printable ASCII
 * and short; retry only from ASCII digits), with the bytes handed over in reads of any size.
 * Under a small event limit the parser may instead refuse the stream, with a
 * {@link TransportException} and nothing else, and never returns an event over the limit.
 */
class SseReaderFuzzTest {

  record Seen(List<SseReader.Event> events, String lastEventId, Long retry) {}

  @FuzzTest
  void readAnything(FuzzedDataProvider data) throws IOException {
    boolean small = data.consumeBoolean();
    int limit = small ? data.consumeInt(1, 64) : 1 << 20;
    int chunk = data.consumeInt(1, 64);
    byte[] input = data.consumeRemainingAsBytes();
    InputStream pipe = new ByteArrayInputStream(input) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
    SseReader reader = new SseReader(pipe, limit);
    List<SseReader.Event> events = new ArrayList<>();
    try {
      for (SseReader.Event e; (e = reader.next()) != null; ) {
        assertThat(e.data().length()).isLessThanOrEqualTo(limit);
        events.add(e);
      }
    } catch (TransportException refused) {
      assertThat(small).as("only a small limit refuses these inputs").isTrue();
      return;
    }
    if (!small) {
      assertThat(new Seen(events, reader.lastEventId(), reader.retryMillis()))
          .isEqualTo(model(new String(input, StandardCharsets.UTF_8)));
    }
  }

  private static Seen model(String text) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    boolean open = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n') {
        lines.add(line.toString());
        line.setLength(0);
        open = false;
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
      } else {
        line.append(c);
        open = true;
      }
    }
    if (open) {
      lines.add(line.toString()); // a last line cut off by the end of the stream
    }
    List<SseReader.Event> events = new ArrayList<>();
    String type = null;
    String id = null;
    StringBuilder eventData = null;
    String lastId = null;
    Long retry = null;
    for (String l : lines) {
      if (l.isEmpty()) {
        if (id != null) {
          lastId = id;
        }
        if (eventData != null) {
          events.add(new SseReader.Event(type == null ? "message" : type, id,
              eventData.toString()));
        }
        type = null;
        id = null;
        eventData = null;
        continue;
      }
      if (l.charAt(0) == ':') {
        continue;
      }
      int colon = l.indexOf(':');
      String field = colon < 0 ? l : l.substring(0, colon);
      String value = colon < 0 ? "" : l.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "data" -> eventData = eventData == null ? new StringBuilder(value)
            : eventData.append('\n').append(value);
        case "event" -> type = value;
        case "id" -> {
          if (value.length() <= SseReader.MAX_EVENT_ID
              && value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
            id = value;
          }
        }
        case "retry" -> {
          if (!value.isEmpty() && value.length() <= 9
              && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            retry = Long.parseLong(value);
          }
        }
        default -> { }
      }
    }
    return new Seen(events, lastId, retry);
  }
}
