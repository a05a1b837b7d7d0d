package dev.keel.mcp.http.internal;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Starts SSE responses with the headers every stream carries. */
final class SseResponses {

  private SseResponses() {}

  static SseWriter open(HttpServletResponse resp, String sessionId) throws IOException {
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
