package dev.keel.bench.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Idle capacity: open N legacy sessions, give each a GET listening stream, measure the server's
 * memory per session (heap after a full GC, and resident set), then check that calls on fresh
 * sessions are still served and that the streams are still open. Afterwards every stream is
 * dropped and every session deleted.
 */
final class IdleScenario {

  private static final int OPENERS = 16;

  private final InetSocketAddress address;
  private final Wire wire;
  private final ServerMemory memory;

  IdleScenario(InetSocketAddress address, Wire wire, ServerMemory memory) {
    this.address = address;
    this.wire = wire;
    this.memory = memory;
  }

  void run(int sessions, int followUpSeconds, Map<String, Object> result) throws IOException {
    long heapBefore = memory.heapAfterGcBytes();
    long rssBefore = memory.rssBytes();
    List<String> ids = openSessions(sessions);
    try (IdleStreams streams = new IdleStreams(address, wire)) {
      // Openers racing for the last slots may open a few more than asked; those stay idle.
      streams.open(ids.subList(0, Math.min(sessions, ids.size())), TimeUnit.MINUTES.toMillis(5));
      long heapAfter = memory.heapAfterGcBytes();
      long rssAfter = memory.rssBytes();
      int opened = streams.opened();
      result.put("sessions", Math.min(sessions, ids.size()));
      result.put("streams", opened);
      result.put("refused", streams.refused());
      result.put("heapBeforeMb", Driver.mb(heapBefore));
      result.put("heapAfterMb", Driver.mb(heapAfter));
      result.put("heapBytesPerSession", perSession(heapAfter - heapBefore, heapBefore, opened));
      result.put("rssBytesPerSession", perSession(rssAfter - rssBefore, rssBefore, opened));

      List<Script> callers = new ArrayList<>();
      for (int i = 0; i < OPENERS; i++) {
        callers.add(new Scripts.CallLoop(wire, Wire.Style.SESSION, "echo", "{\"text\":\"hi\"}"));
      }
      Stats calls = new LoadEngine(address, ServerCpu.UNKNOWN).run(callers, 0, followUpSeconds, TimeUnit.SECONDS);
      result.put("followUpPerSecond", Driver.round(calls.perSecond()));
      result.put("followUpOk", calls.ok);
      result.put("errors", calls.errors + (Math.min(sessions, ids.size()) - opened));
      if (calls.firstError != null) {
        result.put("firstError", calls.firstError);
      }
      result.put("streamsOpenAfter", streams.stillOpen());
    } finally {
      deleteSessions(ids);
    }
  }

  private static long perSession(long delta, long before, int count) {
    return before < 0 || count == 0 ? -1 : delta / count;
  }

  private List<String> openSessions(int count) throws IOException {
    List<String> sink = new ArrayList<>(count);
    List<Script> openers = new ArrayList<>();
    for (int i = 0; i < OPENERS; i++) {
      openers.add(new Scripts.OpenSessions(wire, sink, count));
    }
    new LoadEngine(address, ServerCpu.UNKNOWN).run(openers, 0, 10, TimeUnit.MINUTES);
    return sink;
  }

  private void deleteSessions(List<String> ids) throws IOException {
    ArrayDeque<String> queue = new ArrayDeque<>(ids);
    List<Script> deleters = new ArrayList<>();
    for (int i = 0; i < OPENERS; i++) {
      deleters.add(new Scripts.DeleteSessions(wire, queue));
    }
    new LoadEngine(address, ServerCpu.UNKNOWN).run(deleters, 0, 10, TimeUnit.MINUTES);
  }
}
