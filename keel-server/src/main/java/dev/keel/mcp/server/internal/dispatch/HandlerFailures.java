package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.schema.CallToolResult;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;

/**
 * The one way a failure of user code is reported: logged with its stack trace under a short
 * random error id, and answered with that id and nothing else.
 *
 * <p>Only the id crosses the wire, so an operator can find the log line a user quotes while the
 * peer learns nothing about the failure (no exception text, class or input excerpt). Every path
 * that turns a handler's failure into an answer goes through here, so none of them can forget the
 * log line or the id.
 */
final class HandlerFailures {

  private HandlerFailures() {}

  /** Returns a new error id: 8 hex digits, enough to find one line in a day of logs. */
  static String newId() {
    return String.format("%08x", ThreadLocalRandom.current().nextInt());
  }

  /**
   * Logs {@code what} (with the failure's stack trace when there is one) under a new error id.
   *
   * @return the id, for the answer
   */
  static String log(Logger log, String what, Throwable failure) {
    String id = newId();
    log.error("{} (error id {})", what, id, failure);
    return id;
  }

  /**
   * Logs a tool's failure and returns the tool error the model sees.
   *
   * @param failure the exception, or null when the tool failed without one (a null result)
   */
  static CallToolResult tool(Logger log, String name, String problem, Throwable failure) {
    String id = log(log, "tool " + name + " " + problem, failure);
    return CallToolResult.error("Tool " + name + " failed (error id " + id + ")");
  }

  /**
   * Logs the failure of any other request and returns {@code -32603} carrying the error id.
   *
   * @param what the method, and the target it names when it has one
   */
  static McpException internal(Logger log, String what, Throwable failure) {
    return internal(log(log, what + " failed", failure));
  }

  /** Returns {@code -32603} carrying an error id already logged. */
  static McpException internal(String id) {
    return new McpException(ErrorCodes.INTERNAL_ERROR, "Internal error (error id " + id + ")");
  }
}
