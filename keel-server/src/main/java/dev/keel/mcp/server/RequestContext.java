package dev.keel.mcp.server;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a handler knows about the request it serves, and what it may do while serving it.
 *
 * <p>The same methods work whatever protocol era the request came in: {@link #elicit} is a
 * server-to-client request in a legacy session and a multi-round-trip exchange in the stateless
 * era, where the handler runs again once the client has answered (see {@link InputRequests}). A handler runs on its own thread (virtual where the JVM has them) and may block. When the
 * request is cancelled, {@link #cancellation()} trips and the thread is interrupted (unless the
 * tool opted out); whatever it returns afterwards is dropped.
 *
 * <pre>{@code
 * (ctx, args) -> {
 *   ctx.log(LoggingLevel.INFO, "starting");
 *   for (int i = 1; i <= 10; i++) {
 *     ctx.cancellation().throwIfCancelled();
 *     work(i);
 *     ctx.progress(i, 10.0, "step " + i);
 *   }
 *   return CallToolResult.text("done");
 * }
 * }</pre>
 */
public interface RequestContext {

  /** Returns the token that trips when this request is cancelled or times out. */
  CancellationToken cancellation();

  /** Returns who the request runs as. */
  Principal principal();

  /** Returns the legacy session id, or null for a sessionless request. */
  String sessionId();

  /** Returns the protocol version the request speaks. */
  String protocolVersion();

  /** Returns what the client declared it can do. */
  ClientCapabilities clientCapabilities();

  /** Returns the client's name and version, or null when it did not say. */
  Implementation clientInfo();

  /** Returns the id of the request. */
  RequestId requestId();

  /** Returns the method of the request. */
  String method();

  /** Returns the request's {@code _meta}, or null. */
  ObjectNode meta();

  /**
   * Reports progress to the client. Does nothing when the client asked for no progress, after
   * the request completed, or when {@code progress} does not exceed the last value sent
   * (progress only increases).
   *
   * @param progress how far the work is
   * @param total the total, or null when unknown
   * @param message a description, or null
   */
  void progress(double progress, Double total, String message);

  /**
   * Sends a log message to the client on this request's stream, when {@code level} passes the
   * level the client chose.
   */
  void log(LoggingLevel level, String message);

  /** Sends structured log data to the client, when {@code level} passes its level. */
  void log(LoggingLevel level, String logger, JsonNode data);

  /**
   * Returns a builder for several questions to the client at once, answered together (one round
   * trip in the stateless era).
   */
  InputRequests inputs();

  /**
   * Asks the user for input under a key the client sees (stateless era: the
   * {@code inputRequests} key); otherwise like {@link #elicit(ElicitRequest)}.
   */
  ElicitResult elicit(String key, ElicitRequest request);

  /** Asks the client's model for a message under a key; see {@link #elicit(String, ElicitRequest)}. */
  CreateMessageResult sample(String key, CreateMessageRequest request);

  /** Asks the client for its roots under a key; see {@link #elicit(String, ElicitRequest)}. */
  List<Root> listRoots(String key);

  /**
   * Asks the user for input and blocks until they answer.
   *
   * @throws dev.keel.mcp.core.McpException {@code -32021} when the client lacks the capability
   * @throws dev.keel.mcp.core.RequestTimeoutException when no answer comes in time
   * @throws dev.keel.mcp.core.RequestCancelledException when the request is cancelled meanwhile
   */
  ElicitResult elicit(ElicitRequest request);

  /**
   * Asks the client's model for a message and blocks until it answers.
   *
   * @throws dev.keel.mcp.core.McpException {@code -32021} when the client lacks the capability
   */
  CreateMessageResult sample(CreateMessageRequest request);

  /**
   * Asks the client for its roots.
   *
   * @throws dev.keel.mcp.core.McpException {@code -32021} when the client lacks the capability
   */
  List<Root> listRoots();

  /**
   * Asks the user to approve an action and blocks until they answer. Fails closed: it returns
   * true only for an explicit approval; without the elicitation capability, without a stream to
   * ask on, on timeout, decline, cancel or any other answer it returns false.
   *
   * <pre>{@code
   * if (!ctx.requireApproval("Delete 12 rows from orders?")) {
   *   return CallToolResult.error("Not approved: nothing was deleted");
   * }
   * }</pre>
   *
   * @throws dev.keel.mcp.core.RequestCancelledException when the request is cancelled meanwhile
   */
  boolean requireApproval(String message);

  /**
   * Closes this request's response stream early and lets the client fetch the rest by
   * reconnecting (SSE polling, SEP-1699). Nothing is lost: later messages wait in the event
   * store. Does nothing where the transport cannot resume streams.
   */
  void closeStreamForPolling();

  /**
   * Returns the id of the task this handler runs in, or null when it serves an ordinary request.
   */
  default String taskId() {
    return null;
  }

  /**
   * Continues the call as a task, for a tool registered with
   * {@link ToolOptions#withTaskOnDemand()}: when the call may become a task, the client gets the
   * task at once and {@code work} runs on the task's own thread with the task's context;
   * otherwise (no task support on either side, or already in a task) {@code work} runs here and
   * now with this context.
   *
   * <p>Ask the client what the work needs before calling this (those answers come in ordinary
   * rounds), and use only the context {@code work} is given afterwards. Like the attempt-ending
   * signal of the stateless era, becoming a task leaves the handler through an {@link Error}
   * that {@code catch (Exception e)} does not catch.
   *
   * <pre>{@code
   * (ctx, args) -> {
   *   String name = ctx.elicit("user_name", ask).content().get("name").asString();
   *   return ctx.continueAsTask(task -> CallToolResult.text("Hello, " + name + "!"));
   * }
   * }</pre>
   *
   * @return what {@code work} returned, when it ran here
   */
  default dev.keel.mcp.core.schema.CallToolResult continueAsTask(TaskWork work) throws Exception {
    return work.run(this);
  }
}
