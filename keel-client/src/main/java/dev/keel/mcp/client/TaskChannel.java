package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.ServerCapabilities;
import java.time.Duration;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What task calls need from the client, and nothing more: the era and what the server offers,
 * the session a task belongs to, a way to send the task's requests, and the host's answers to
 * its questions. {@link TaskCalls} sees the client only through this.
 */
interface TaskChannel {

  /** Returns the connection's era. */
  Era era();

  /** Returns what the server offers, or null before the handshake. */
  ServerCapabilities serverCapabilities();

  /** Returns the listed tool's {@code execution.taskSupport} ({@code forbidden} when unknown). */
  String taskSupport(String tool);

  /** Makes sure a legacy session exists and returns its epoch (stateless: the transport's). */
  long currentSession();

  /**
   * Sends one request of a task and returns its raw result: stateless with the tasks extension
   * declared, or legacy pinned to the session of {@code epoch}. Never re-sent.
   */
  JsonNode send(String method, ObjectNode params, Duration timeout, long epoch);

  /** Answers one of the server's input requests through the host's handlers. */
  JsonNode answer(String method, ObjectNode params);

  /** Returns the client's default request timeout. */
  Duration defaultTimeout();

  /** Runs {@code work} with {@code guard} checked at the wire before each of its writes. */
  <T> T guarded(Runnable guard, Supplier<T> work);
}
