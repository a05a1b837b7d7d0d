package dev.keel.mcp.client.misbehave;

import java.io.IOException;

/**
 * One way for {@link FaultServer} to answer a {@code tools/call} wrongly. Each policy breaks one
 * thing; whatever it does not override is answered as a well-behaved server would. Event ids of
 * the call's stream start with {@code call-}, so the server sends the GETs that resume it back
 * here ({@link #onResume}); the listening stream's GETs come to {@link #onListen}.
 */
enum FaultPolicy {

  /** The connection closes after the request arrived, before a byte of the answer. */
  DROP_BEFORE_RESPONSE {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      throw new IOException("dropped on purpose");
    }
  },

  /** Nothing is ever answered; the connection stays open until the client hangs up. */
  STALL {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.awaitHangUp();
    }
  },

  /** An event stream opens, carries a comment, and then nothing, until the client hangs up. */
  STALL_MID_STREAM {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.raw(": working\n\n");
      reply.awaitHangUp();
    }
  },

  /**
   * The stream carries two notifications with ids and ends without the answer; every
   * resumption does the same, so the client runs out of resumptions.
   */
  CLOSE_AFTER_EVENTS {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      twoEvents(reply, "call-1", "call-2");
    }

    @Override
    void onResume(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      String after = request.lastEventId();
      twoEvents(reply, after + "-a", after + "-b");
    }

    private void twoEvents(FaultServer.Reply reply, String first, String second)
        throws IOException {
      reply.sse();
      reply.raw("retry: 10\n\n");
      reply.event(first, FaultServer.note("one"));
      reply.event(second, FaultServer.note("two"));
      reply.end();
    }
  },

  /**
   * The stream breaks after one event; when the client resumes it, the server has forgotten the
   * session (404): the session ended in the middle of the call.
   */
  SESSION_GONE_MID_CALL {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.raw("retry: 10\n");
      reply.event("call-1", FaultServer.note("started"));
      reply.end();
    }

    @Override
    void onResume(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      server.expire(request.session());
      reply.empty(404, "");
    }
  },

  /** One event far larger than the client's event limit (the test sets 16 KiB). */
  OVERSIZED_EVENT {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      String pad = "x".repeat(32 * 1024);
      for (int i = 0; i < 8; i++) {
        reply.raw(i == 0 ? "data: " + pad : pad);
      }
      reply.raw("\n\n");
      reply.end();
    }
  },

  /** The stream's only message is not JSON (the answer, cut short), then the stream ends. */
  MALFORMED_EVENT {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.event(null, "{\"jsonrpc\":\"2.0\",\"id\":" + request.id() + ",\"result\":{\"con");
      reply.end();
    }
  },

  /** A JSON answer whose body is not JSON. */
  MALFORMED_JSON_BODY {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.json("not json at all");
    }
  },

  /** A redirect to another origin (the test's {@link OtherOrigin}). */
  REDIRECT_OFF_ORIGIN {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.empty(307, "Location: " + server.otherOrigin() + "\r\n");
    }
  },

  /** {@code retry:} of 999,999,999 ms (11 days) on a stream that then ends. */
  HUGE_RETRY {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.raw("retry: 999999999\n");
      reply.event("call-1", FaultServer.note("come back in 11 days"));
      reply.end();
    }
  },

  /**
   * {@code retry:} of 30 s, under the client's ceiling, on a stream that then ends: the client
   * waits to resume, and the caller's timeout comes first.
   */
  LONG_RETRY {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.raw("retry: 30000\n");
      reply.event("call-1", FaultServer.note("come back in 30 s"));
      reply.end();
    }
  },

  /** The answer twice (the second one different), then the stream stays open. */
  DUPLICATE_RESPONSE_ID {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      reply.event(null, FaultServer.result(request.id(),
          "{\"content\":[{\"type\":\"text\",\"text\":\"first\"}]}"));
      reply.event(null, FaultServer.result(request.id(),
          "{\"content\":[{\"type\":\"text\",\"text\":\"second\"}]}"));
      reply.awaitHangUp();
    }
  },

  /** A JSON answer to an id the client never sent. */
  UNSOLICITED_ID {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.json(FaultServer.result("987654",
          "{\"content\":[{\"type\":\"text\",\"text\":\"stray\"}]}"));
    }
  },

  /** HTTP 200 with an HTML page (a proxy's login page, say). */
  WRONG_CONTENT_TYPE {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.body(200, "text/html; charset=utf-8", "<html><body>Please log in</body></html>");
    }
  },

  /**
   * The listening stream (legacy only) asks for a {@code retry:} of 11 days and ends; the call
   * itself is answered normally. The stream must come back after the client's ceiling.
   */
  LISTENING_HUGE_RETRY {
    @Override
    void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.json(FaultServer.result(request.id(), server.normalResult(request)));
    }

    @Override
    boolean onListen(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
        throws IOException {
      reply.sse();
      if (request.lastEventId() == null) {
        reply.raw("retry: 999999999\n");
        reply.event("listen-1", FaultServer.note("come back in 11 days"));
        reply.end();
      } else {
        reply.raw(": resumed\n\n");
        reply.awaitHangUp();
      }
      return true;
    }

    @Override
    boolean legacyOnly() {
      return true;
    }
  };

  /** Answers the armed {@code tools/call}. */
  abstract void onCall(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
      throws IOException;

  /** Answers a GET that resumes the call's stream; by default there is none to resume (405). */
  void onResume(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
      throws IOException {
    reply.empty(405, "");
  }

  /** Answers a listening-stream GET, or returns false for the default (405). */
  boolean onListen(FaultServer server, FaultServer.Request request, FaultServer.Reply reply)
      throws IOException {
    return false;
  }

  /** Returns true when the fault exists only in the legacy era. */
  boolean legacyOnly() {
    return false;
  }
}
