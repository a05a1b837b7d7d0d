package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.spi.EventStore;
import dev.keel.mcp.server.transport.ServerSession;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A GET on a session: resumes the stream a {@code Last-Event-ID} names (replaying only that
 * stream's later events), or opens the session's listening stream.
 */
final class ResumeOrListen {

  private final TransportContext context;
  private final SessionStreams streams;
  private final ServerSession session;
  private final boolean primes;

  ResumeOrListen(TransportContext context, SessionStreams streams, ServerSession session,
      boolean primes) {
    this.context = context;
    this.streams = streams;
    this.session = session;
    this.primes = primes;
  }

  void serve(HttpServletRequest req, String lastEventId) throws IOException {
    AsyncContext async = req.startAsync();
    async.setTimeout(0);
    EventStore events = context.events();
    if (lastEventId != null && events != null) {
      Optional<String> stream = events.streamOf(session.id(), lastEventId);
      if (stream.isPresent()) {
        List<EventStore.StoredEvent> missed = events.after(session.id(), lastEventId);
        if (stream.get().startsWith("p")) {
          resumeRequestStream(async, stream.get(), missed);
          return;
        }
        listen(async, stream.get(), missed);
        return;
      }
    }
    listen(async, streams.newListeningStreamId(), null);
  }

  private void resumeRequestStream(AsyncContext async, String streamId,
      List<EventStore.StoredEvent> missed) throws IOException {
    PostExchange exchange = streams.requestStream(streamId);
    if (exchange != null) {
      exchange.reattach(async, missed);
      return;
    }
    // The request already finished: replay what is left of it and end.
    SseWriter writer = SseResponses.open((HttpServletResponse) async.getResponse(), null);
    writer.flush();
    for (EventStore.StoredEvent event : missed) {
      if (event.data().length > 0) {
        writer.message(event.id(), event.data());
      }
    }
    async.complete();
  }

  private void listen(AsyncContext async, String streamId, List<EventStore.StoredEvent> missed)
      throws IOException {
    SseWriter writer = SseResponses.open((HttpServletResponse) async.getResponse(), null);
    new ListeningStream(context, streams, session, streamId, primes, async, writer)
        .open(missed);
  }
}
