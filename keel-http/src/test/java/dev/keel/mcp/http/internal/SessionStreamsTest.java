package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.http.spi.EventStore;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A session's stored events do not outlive it: an event a stream stores after the session
 * ended (the race the 30-minute soak found, docs/reliability.md) is forgotten with the rest.
 */
class SessionStreamsTest {

  private static final byte[] EVENT = "{}".getBytes(StandardCharsets.UTF_8);

  @Test
  void anEventStoredWhileTheSessionLivesIsKeptForResumption() {
    EventStore events = EventStore.inMemory(10, 1 << 16);
    SessionStreams streams = new SessionStreams("s1");
    String first = streams.append(events, "p1", new byte[0]);
    streams.append(events, "p1", EVENT);
    assertThat(events.after("s1", first)).hasSize(1);
  }

  @Test
  void anEventStoredAfterTheSessionEndedIsForgottenToo() {
    EventStore events = EventStore.inMemory(10, 1 << 16);
    SessionStreams streams = new SessionStreams("s1");
    String before = streams.append(events, "p1", new byte[0]);
    // the session's end, in the order the transport runs it: streams closed, events forgotten
    streams.closeAll(false);
    events.forget("s1");
    String late = streams.append(events, "p2", EVENT);
    assertThat(events.streamOf("s1", late)).as("the late event's stream").isEmpty();
    assertThat(events.streamOf("s1", before)).isEmpty();
  }
}
