package dev.keel.mcp.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.RequestId;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The one shape of {@code notifications/cancelled} that server and client both make and read. */
class CancelledNoticeTest {

  @Test
  void aNoticeReadsBackWhatWasSentForNumericAndStringIds() {
    for (RequestId id : new RequestId[] {RequestId.of(42), RequestId.of("req-7")}) {
      JsonRpcNotification sent = new CancelledNotice(id, "user pressed stop").toNotification();
      assertThat(sent.method()).isEqualTo("notifications/cancelled");
      CancelledNotice read = CancelledNotice.read(sent.params());
      assertThat(read).isEqualTo(new CancelledNotice(id, "user pressed stop"));
    }
    assertThat(new CancelledNotice(RequestId.of(42), "x").toNotification().params()
        .get("requestId").isNumber()).isTrue();
    assertThat(new CancelledNotice(RequestId.of("42"), "x").toNotification().params()
        .get("requestId").isString()).isTrue();
  }

  @Test
  void aNoticeWithoutAReasonSendsNoneAndReadsAsCancelled() {
    ObjectNode params = new CancelledNotice(RequestId.of(1), null).toNotification().params();
    assertThat(params.has("reason")).isFalse();
    assertThat(CancelledNotice.read(params).reason()).isEqualTo("cancelled");
  }

  @Test
  void aReasonThatIsNotTextReadsAsCancelled() {
    ObjectNode params = McpJson.object().put("requestId", 3);
    params.putObject("reason").put("nested", true);
    assertThat(CancelledNotice.read(params)).isEqualTo(
        new CancelledNotice(RequestId.of(3), "cancelled"));
  }

  @Test
  void paramsThatNameNoValidRequestIdReadAsNothing() {
    assertThat(CancelledNotice.read(null)).isNull();
    assertThat(CancelledNotice.read(McpJson.object())).isNull();
    assertThat(CancelledNotice.read(McpJson.object().put("requestId", true))).isNull();
    ObjectNode nested = McpJson.object();
    nested.putObject("requestId");
    assertThat(CancelledNotice.read(nested)).isNull();
  }
}
