package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.McpServer;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An idle listening stream costs little memory outside the heap. A stream keeps its container
 * output buffer while it is open; Jetty's default (32 KiB of direct memory) made 10,000 idle
 * streams exhaust the direct-memory limit of a 256 MB JVM and stall every container thread.
 */
class IdleStreamMemoryTest {

  static final int STREAMS = 300;

  @Test
  void eachIdleListeningStreamHoldsAtMostEightKibOfDirectMemory() throws Exception {
    McpServer server = McpServer.builder().maxSessionsPerPrincipal(STREAMS + 10).build();
    McpHttpServer http = McpHttpServer.builder(server).port(0).start();
    List<SseClient> streams = new ArrayList<>();
    try {
      Peer peer = new Peer(http.port());
      List<String> sessions = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        sessions.add(peer.initialize(null));
      }
      // One stream first, so buffers the container allocates once are not counted.
      streams.add(openListening(peer, sessions.get(0)));
      long before = directMemoryUsed();
      for (int i = 1; i < STREAMS; i++) {
        streams.add(openListening(peer, sessions.get(i)));
      }
      long perStream = (directMemoryUsed() - before) / (STREAMS - 1);
      assertThat(http.servlet().openListeningStreams()).isEqualTo(STREAMS);
      assertThat(perStream).as("direct memory per idle stream").isLessThanOrEqualTo(8 * 1024);
    } finally {
      for (SseClient s : streams) {
        s.close();
      }
      http.close();
      server.close();
    }
  }

  private static SseClient openListening(Peer peer, String session) throws Exception {
    SseClient sse = peer.get(null, session);
    assertThat(sse.next(5000)).as("priming event").isNotNull();
    return sse;
  }

  private static long directMemoryUsed() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new IllegalStateException("no direct buffer pool");
  }
}
