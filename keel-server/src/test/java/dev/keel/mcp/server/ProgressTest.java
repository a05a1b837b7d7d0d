package dev.keel.mcp.server;

import static dev.keel.mcp.server.EngineFixture.resultOf;
import static dev.keel.mcp.server.EngineFixture.textOf;
import static dev.keel.mcp.server.EngineFixture.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProgressTest {

  private static final String TOKEN = "\"_meta\":{\"progressToken\":\"p-1\"}";

  private final AtomicReference<RequestContext> captured = new AtomicReference<>();
  private final ExecutorService reporters = Executors.newFixedThreadPool(4);
  private EngineFixture fixture;
  private ServerSession session;
  private final CollectingStream stream = CollectingStream.open();

  @BeforeEach
  void buildServer() {
    fixture = new EngineFixture(McpServer.builder()
        .tool(Tool.builder("steps").build(), (ctx, args) -> {
          ctx.progress(10, 100.0, "ten");
          ctx.progress(5, 100.0, "five");
          ctx.progress(10, 100.0, "ten again");
          ctx.progress(Double.NaN, 100.0, "not a number");
          ctx.progress(20, null, null);
          return CallToolResult.text("stepped");
        })
        .tool(Tool.builder("keeper").build(), (ctx, args) -> {
          captured.set(ctx);
          ctx.progress(1, null, "started");
          return CallToolResult.text("kept");
        })
        .tool(Tool.builder("crowd").build(), (ctx, args) -> {
          CountDownLatch go = new CountDownLatch(1);
          List<Future<?>> all = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            all.add(reporters.submit(() -> {
              go.await();
              for (int i = 1; i <= 300; i++) {
                ctx.progress(i, 300.0, null);
              }
              return null;
            }));
          }
          go.countDown();
          for (Future<?> f : all) {
            f.get(2, TimeUnit.SECONDS);
          }
          return CallToolResult.text("crowded");
        })
        .build());
    session = fixture.initialize(Principal.local(), EngineFixture.NOTHING);
  }

  @AfterEach
  void closeServer() {
    reporters.shutdownNow();
    fixture.close();
  }

  private List<Double> progressValues() {
    List<Double> values = new ArrayList<>();
    for (JsonRpcNotification n : stream.notifications("notifications/progress")) {
      values.add(n.params().get("progress").doubleValue());
    }
    return values;
  }

  @Test
  void inv25_progressThatDoesNotIncreaseIsDropped() {
    JsonNode result = resultOf(fixture.handle(session,
        toolCall(RequestId.of(1), "steps", TOKEN), stream));

    assertThat(textOf(result)).isEqualTo("stepped");
    assertThat(progressValues()).containsExactly(10.0, 20.0);
    List<JsonRpcNotification> sent = stream.notifications("notifications/progress");
    assertThat(sent.get(0).params().get("progressToken").stringValue()).isEqualTo("p-1");
    assertThat(sent.get(0).params().get("total").doubleValue()).isEqualTo(100.0);
    assertThat(sent.get(0).params().get("message").stringValue()).isEqualTo("ten");
    assertThat(sent.get(1).params().get("progressToken").stringValue()).isEqualTo("p-1");
    assertThat(sent.get(1).params().has("total")).isFalse();
    assertThat(sent.get(1).params().has("message")).isFalse();
    assertThat(sent.get(0).id()).isNull();
  }

  @Test
  void inv25_aNumericProgressTokenIsEchoedAsANumber() {
    fixture.handle(session,
        toolCall(RequestId.of(2), "steps", "\"_meta\":{\"progressToken\":7}"), stream);

    List<JsonRpcNotification> sent = stream.notifications("notifications/progress");
    assertThat(sent).hasSize(2);
    assertThat(sent.get(0).params().get("progressToken").isIntegralNumber()).isTrue();
    assertThat(sent.get(0).params().get("progressToken").longValue()).isEqualTo(7L);
  }

  @Test
  void inv25_noProgressIsSentWithoutAProgressToken() {
    JsonNode result = resultOf(fixture.handle(session,
        toolCall(RequestId.of(3), "steps", null), stream));
    fixture.handle(session, toolCall(RequestId.of(4), "steps", "\"_meta\":{}"), stream);
    fixture.handle(session,
        toolCall(RequestId.of(5), "steps", "\"_meta\":{\"progressToken\":{\"a\":1}}"), stream);
    fixture.handle(session,
        toolCall(RequestId.of(6), "steps", "\"_meta\":{\"progressToken\":true}"), stream);

    assertThat(textOf(result)).isEqualTo("stepped");
    assertThat(stream.messages).isEmpty();
  }

  @Test
  void inv25_noProgressOrLogIsSentAfterTheRequestCompleted() {
    JsonNode result = resultOf(fixture.handle(session,
        toolCall(RequestId.of(7), "keeper", TOKEN), stream));
    assertThat(textOf(result)).isEqualTo("kept");
    assertThat(progressValues()).containsExactly(1.0);

    captured.get().progress(50, 100.0, "after the response");
    captured.get().log(LoggingLevel.EMERGENCY, "after the response");

    assertThat(stream.methods()).containsExactly("notifications/progress");
  }

  @Test
  void inv25_progressReportedFromSeveralThreadsStillOnlyIncreases() {
    // A stream that takes a moment to send makes any reordering between threads visible.
    MessageStream slow = message -> {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
      return stream.send(message);
    };

    resultOf(fixture.handle(session, toolCall(RequestId.of(8), "crowd", TOKEN), slow));

    List<Double> values = progressValues();
    assertThat(values).isNotEmpty();
    assertThat(values).isSorted().doesNotHaveDuplicates();
    assertThat(values.get(values.size() - 1)).isEqualTo(300.0);
  }
}
