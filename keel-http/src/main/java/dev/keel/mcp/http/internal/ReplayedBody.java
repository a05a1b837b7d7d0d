package dev.keel.mcp.http.internal;

import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * A request whose first body bytes {@link SelectorLane} already read, handed on to the servlet
 * as if nothing had been read: the first read returns those bytes, later reads go to the
 * connection.
 */
final class ReplayedBody extends Request.Wrapper {

  private Content.Chunk pending;

  /** Wraps {@code request}; {@code prefix} is what was read, marked last if the body ended. */
  ReplayedBody(Request request, Content.Chunk prefix) {
    super(request);
    this.pending = prefix;
  }

  @Override
  public Content.Chunk read() {
    synchronized (this) {
      Content.Chunk chunk = pending;
      if (chunk != null) {
        pending = null;
        return chunk;
      }
    }
    return super.read();
  }

  @Override
  public void demand(Runnable demandCallback) {
    boolean ready;
    synchronized (this) {
      ready = pending != null;
    }
    if (ready) {
      // never from inside demand(): a reader that demands from its callback would recurse
      getContext().execute(demandCallback);
      return;
    }
    super.demand(demandCallback);
  }
}
