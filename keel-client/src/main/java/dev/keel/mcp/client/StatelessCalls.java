package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.client.internal.ToolCatalog;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Requests in the stateless era, through their input rounds (MRTR): an {@code input_required}
 * result is answered by the host's handlers and the request re-sent with a new id, the
 * {@code inputResponses} and the {@code requestState} exactly as received, at most
 * {@code maxInputRounds} times, all within the call's one timeout.
 */
final class StatelessCalls {

  private static final Logger LOG = LoggerFactory.getLogger(StatelessCalls.class);

  private final ClientState state;
  private final Exchanges exchanges;
  private final HostHandlers host;
  private final ToolCatalog catalog;
  private final Runnable refreshTools;
  private final int maxInputRounds;

  /**
   * @param refreshTools lists the tools again, after a {@code -32020} on {@code tools/call}
   */
  StatelessCalls(ClientState state, Exchanges exchanges, HostHandlers host, ToolCatalog catalog,
      Runnable refreshTools, int maxInputRounds) {
    this.state = state;
    this.exchanges = exchanges;
    this.host = host;
    this.catalog = catalog;
    this.refreshTools = refreshTools;
    this.maxInputRounds = maxInputRounds;
  }

  /**
   * Sends a request through its input rounds and returns the raw result of the last one.
   *
   * @param withTasks declare the tasks extension (the server may answer with a task)
   */
  JsonNode call(String method, ObjectNode params, Duration timeout, ProgressListener listener,
      boolean withTasks) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ObjectNode base = params == null ? McpJson.object() : params;
    ObjectNode responses = null;
    String requestState = null;
    boolean versionRetried = false;
    for (int round = 0; ; round++) {
      ObjectNode sent = base.deepCopy();
      if (responses != null) {
        sent.set("inputResponses", responses);
      }
      if (requestState != null) {
        sent.put("requestState", requestState);
      }
      if (responses != null && System.nanoTime() - deadline >= 0) {
        // the host answered after the call's deadline: the call has timed out, and a round
        // sent now would run it on, past the caller's timeout
        throw new RequestTimeoutException(method, timeout);
      }
      Duration left = Duration.ofNanos(Math.max(1_000_000L, deadline - System.nanoTime()));
      JsonNode result;
      try {
        result = exchanges.stateless(method, sent, left, listener, toolSchema(method, base),
            withTasks);
      } catch (RequestTimeoutException e) {
        // named with the caller's timeout, not with what was left of it for this round
        throw new RequestTimeoutException(method, timeout);
      } catch (McpException e) {
        if (e.code() == ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION && !versionRetried
            && LegacyCalls.idempotent(method)) {
          String other = Handshake.mutualModernVersion(e.data());
          if (other != null) {
            versionRetried = true;
            state.version = other;
            round--;
            continue;
          }
        }
        if (e.code() == ErrorCodes.HEADER_MISMATCH && method.equals("tools/call")) {
          // The tool's header annotations changed: refresh them for the caller's next try. The
          // call itself is never re-sent by the client.
          try {
            refreshTools.run();
          } catch (RuntimeException refresh) {
            LOG.debug("refreshing the tools after -32020 failed: {}",
                Text.safe(refresh.getMessage()));
          }
        }
        throw e;
      }
      String type = result.path("resultType").isString()
          ? result.get("resultType").stringValue() : "complete";
      if (!type.equals("input_required")) {
        return result;
      }
      if (round + 1 >= maxInputRounds) {
        throw new InvalidServerResponseException(method + " still needed input after "
            + maxInputRounds + " rounds; gave up");
      }
      responses = answerInputs(result.get("inputRequests"));
      requestState = Results.text(result, "requestState");
    }
  }

  private ObjectNode toolSchema(String method, ObjectNode params) {
    if (!method.equals("tools/call")) {
      return null;
    }
    String name = Results.text(params, "name");
    return name == null ? null
        : catalog.find(name).map(e -> e.tool().inputSchema()).orElse(null);
  }

  private ObjectNode answerInputs(JsonNode requests) {
    if (!(requests instanceof ObjectNode asked) || asked.isEmpty()) {
      throw new InvalidServerResponseException("an input_required result named no input "
          + "requests");
    }
    ObjectNode answers = McpJson.object();
    for (Map.Entry<String, JsonNode> entry : asked.properties()) {
      JsonNode method = entry.getValue().get("method");
      if (method == null || !method.isString()) {
        throw new InvalidServerResponseException("input request "
            + Text.safe(entry.getKey()) + " names no method");
      }
      JsonNode params = entry.getValue().get("params");
      answers.set(entry.getKey(), host.answer(method.stringValue(),
          params instanceof ObjectNode p ? p : null));
    }
    return answers;
  }
}
