package dev.keel.mcp.http.internal;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Starts SSE responses with the headers every stream carries. */
final class SseResponses {

  /**
   * The output buffer of an SSE response. A stream holds its container's output buffer for as
   * long as it is open, and Jetty's default is 32 KiB of direct memory: 10,000 idle listening
   * streams pinned 320 MB, past the direct-memory limit (by default the heap size), and every
   * container thread then waited in {@code Bits.reserveMemory}. Each frame is flushed as soon as
   * it is written, so the buffer only gathers the pieces of one frame; a larger frame goes out
   * without it. 4 KiB is the smallest buffer Jetty's pool hands out.
   */
  static final int BUFFER_BYTES = 4096;

  private SseResponses() {}

  static SseWriter open(HttpServletResponse resp, String sessionId) throws IOException {
    resp.setBufferSize(BUFFER_BYTES);
    resp.setStatus(200);
    resp.setContentType("text/event-stream");
    resp.setCharacterEncoding("UTF-8");
    resp.setHeader("Cache-Control", "no-cache");
    resp.setHeader("X-Accel-Buffering", "no");
    if (sessionId != null) {
      resp.setHeader("Mcp-Session-Id", sessionId);
    }
    SseWriter writer = new SseWriter(resp.getOutputStream());
    return writer;
  }
}
