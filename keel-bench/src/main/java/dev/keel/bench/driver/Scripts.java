package dev.keel.bench.driver;

import dev.keel.bench.driver.Script.Outcome;
import dev.keel.bench.driver.Wire.Style;
import java.util.List;
import java.util.Queue;

/** The per-connection state machines of the scenarios. */
final class Scripts {

  private Scripts() {}

  /**
   * Calls one tool in a loop. With {@link Style#SESSION} it first opens its own session
   * (initialize, notifications/initialized) and reuses it for every call; a 404 (session gone)
   * counts as an error and opens a new one.
   */
  static final class CallLoop extends Script {
    private final Wire wire;
    private final Style style;
    private final String tool;
    private final String arguments;
    private String session;
    private int step;
    private long id;

    CallLoop(Wire wire, Style style, String tool, String arguments) {
      this.wire = wire;
      this.style = style;
      this.tool = tool;
      this.arguments = arguments;
      this.step = style == Style.SESSION ? 0 : 2;
    }

    @Override
    byte[] next(long now) {
      startOp(now);
      switch (step) {
        case 0: return wire.initialize(++id);
        case 1: return wire.initialized(session);
        default: return wire.call(style, session, ++id, tool, arguments);
      }
    }

    @Override
    Outcome done(ResponseParser r, long now) {
      if (step == 0) {
        session = r.sessionId();
        step = r.failed() ? 0 : 1;
        return r.failed() ? Outcome.ERROR : Outcome.STEP;
      }
      if (step == 1) {
        step = r.failed() ? 0 : 2;
        return r.failed() ? Outcome.ERROR : Outcome.STEP;
      }
      if (r.status() == 404 && style == Style.SESSION) {
        step = 0;
      }
      return r.failed() ? Outcome.ERROR : Outcome.OK;
    }

    @Override
    void broken() {
      step = style == Style.SESSION ? 0 : 2;
    }
  }

  /** Whole session lifetimes: initialize, initialized, one echo call, DELETE. */
  static final class SessionCycle extends Script {
    private final Wire wire;
    private String session;
    private int step;
    private boolean failed;
    private long id;

    SessionCycle(Wire wire) {
      this.wire = wire;
    }

    @Override
    byte[] next(long now) {
      switch (step) {
        case 0:
          startOp(now);
          failed = false;
          return wire.initialize(++id);
        case 1: return wire.initialized(session);
        case 2: return wire.call(Style.SESSION, session, ++id, "echo", "{\"text\":\"hello\"}");
        default: return wire.delete(session);
      }
    }

    @Override
    Outcome done(ResponseParser r, long now) {
      failed |= r.failed();
      if (step == 0) {
        session = r.sessionId();
      }
      if (step < 3) {
        step++;
        return Outcome.STEP;
      }
      step = 0;
      return failed ? Outcome.ERROR : Outcome.OK;
    }

    @Override
    void broken() {
      step = 0;
    }
  }

  /**
   * Opens sessions (initialize, initialized) into {@code sink} until it holds {@code count};
   * gives up after {@value #MAX_FAILURES} failures in a row.
   */
  static final class OpenSessions extends Script {
    static final int MAX_FAILURES = 50;
    private final Wire wire;
    private final List<String> sink;
    private final int count;
    private String session;
    private int step;
    private long id;
    private int failures;
    private boolean stopped;

    OpenSessions(Wire wire, List<String> sink, int count) {
      this.wire = wire;
      this.sink = sink;
      this.count = count;
    }

    @Override
    byte[] next(long now) {
      startOp(now);
      if (step == 0) {
        if (stopped || sink.size() >= count) {
          return null;
        }
        return wire.initialize(++id);
      }
      return wire.initialized(session);
    }

    @Override
    Outcome done(ResponseParser r, long now) {
      if (r.failed() || (step == 0 && r.sessionId() == null)) {
        step = 0;
        // A server that refuses sessions (a full table, say) would be asked forever.
        return ++failures >= MAX_FAILURES ? giveUp() : Outcome.ERROR;
      }
      failures = 0;
      if (step == 0) {
        session = r.sessionId();
        step = 1;
        return Outcome.STEP;
      }
      sink.add(session);
      step = 0;
      return Outcome.OK;
    }

    private Outcome giveUp() {
      stopped = true;
      return Outcome.ERROR;
    }
  }

  /** Deletes the sessions in {@code sessions} until none is left. */
  static final class DeleteSessions extends Script {
    private final Wire wire;
    private final Queue<String> sessions;

    DeleteSessions(Wire wire, Queue<String> sessions) {
      this.wire = wire;
      this.sessions = sessions;
    }

    @Override
    byte[] next(long now) {
      startOp(now);
      String session = sessions.poll();
      return session == null ? null : wire.delete(session);
    }

    @Override
    Outcome done(ResponseParser r, long now) {
      return r.failed() ? Outcome.ERROR : Outcome.OK;
    }
  }
}
