package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.client.SessionExpiredException;
import dev.keel.mcp.client.misbehave.FakeMcpServer.Seen;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A legacy server forgets the session (HTTP 404): the client starts a new session, re-sends
 * idempotent requests once into it, and never re-sends a {@code tools/call} or
 * {@code tasks/update}, nor anything pinned to the ended session.
 */
class SessionExpiryTest {

  private FakeMcpServer server;

  @BeforeEach
  void start() throws Exception {
    server = FakeMcpServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void inv52_toolsCallIsNeverResentAfterSessionExpiry() {
    try (McpClient client = Clients.legacy(server)) {
      client.listTools();
      String first = client.transport().sessionId();
      assertThat(first).isEqualTo("session-1");
      server.expire(first);

      assertThatThrownBy(() -> client.callTool("echo", args("once")))
          .isInstanceOf(SessionExpiredException.class);

      // exactly one POST of the call, into the ended session; the replacement got none
      assertThat(server.seen("tools/call")).extracting(Seen::session).containsExactly(first);
      // but the client did start a new session, so the caller's next call works
      assertThat(server.seen("initialize")).hasSize(2);
      assertThat(client.transport().sessionId()).isEqualTo("session-2");
      CallToolResult next = client.callTool("echo", args("again"));
      assertThat(next.content()).first().isInstanceOfSatisfying(TextContent.class,
          t -> assertThat(t.text()).isEqualTo("ok"));
      assertThat(server.seen("tools/call")).extracting(Seen::session)
          .containsExactly(first, "session-2");
      assertThat(server.seen("tools/call").get(1).body().path("params").path("arguments")
          .path("text").stringValue()).isEqualTo("again");
    }
  }

  @Test
  void inv52_tasksUpdateIsNeverResentAfterSessionExpiry() {
    try (McpClient client = Clients.legacy(server)) {
      String first = client.transport().sessionId();
      server.expire(first);
      ObjectNode params = McpJson.object().put("taskId", "task-7");
      params.putObject("inputResponses").putObject("k1").put("action", "accept");

      assertThatThrownBy(() -> client.request("tasks/update", params, CallOptions.defaults()))
          .isInstanceOf(SessionExpiredException.class);

      assertThat(server.seen("tasks/update")).extracting(Seen::session).containsExactly(first);
      assertThat(server.seen("initialize")).hasSize(2);
      client.request("tasks/update", params, CallOptions.defaults());
      assertThat(server.seen("tasks/update")).extracting(Seen::session)
          .containsExactly(first, "session-2");
    }
  }

  @Test
  void inv53_idempotentRequestIsResentOnceIntoTheNewSession() {
    try (McpClient client = Clients.legacy(server)) {
      client.listTools();
      server.expire("session-1");

      assertThat(client.listTools()).extracting(Tool::name).containsExactly("echo");

      assertThat(server.seen("initialize")).hasSize(2);
      assertThat(server.seen("tools/list")).extracting(Seen::session)
          .containsExactly("session-1", "session-1", "session-2");
    }
  }

  @Test
  void inv53_idempotentRequestIsResentAtMostOnce() {
    // A server that loses every session as soon as it is used for tools/list (the first four:
    // a client that re-sent without end would get an answer from the fifth, and fail below).
    server.behave((request, ex) -> {
      if (request.is("tools/list") && server.sessionsStarted() < 5) {
        server.expire(request.session());
        FakeMcpServer.status(ex, 404);
        return true;
      }
      return false;
    });
    try (McpClient client = Clients.legacy(server)) {
      assertThatThrownBy(client::listTools).isInstanceOf(SessionExpiredException.class);

      assertThat(server.seen("tools/list")).extracting(Seen::session)
          .containsExactly("session-1", "session-2");
    }
  }

  @Test
  void inv53_resendIsRefusedWhenTheCallerPinnedTheEndedSession() {
    try (McpClient client = Clients.legacy(server)) {
      client.listTools();
      long oldEpoch = client.transport().sessionEpoch();
      server.expire("session-1");

      assertThatThrownBy(() -> client.transport().pinnedToSession(oldEpoch, client::listTools))
          .isInstanceOf(SessionChangedException.class);

      // the request went once into its own session; recovery ran (unpinned), but the re-send
      // into the new session was refused: nothing but the handshake reached session-2
      assertThat(server.seen("tools/list")).extracting(Seen::session)
          .containsExactly("session-1", "session-1");
      assertThat(server.seen("initialize")).hasSize(2);
      assertThat(client.transport().sessionEpoch()).isGreaterThan(oldEpoch);
      assertThat(server.seen()).filteredOn(s -> s.verb().equals("POST")
              && "session-2".equals(s.session()))
          .extracting(Seen::method).containsExactly("notifications/initialized");

      // unpinned, the same request goes to the new session
      client.listTools();
      assertThat(server.seen("tools/list")).extracting(Seen::session)
          .containsExactly("session-1", "session-1", "session-2");
    }
  }

  private static ObjectNode args(String text) {
    return McpJson.object().put("text", text);
  }
}
