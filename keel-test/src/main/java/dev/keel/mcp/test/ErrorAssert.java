package dev.keel.mcp.test;

import dev.keel.mcp.core.McpException;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions on a JSON-RPC error the server answered with: its code and message.
 *
 * <pre>{@code
 * assertThat(client.call("nope")).failedWith(ErrorCodes.INVALID_PARAMS)
 *     .messageContains("Unknown tool");
 * McpAssertions.assertThatError(() -> client.mcp().readResource("db://missing"))
 *     .hasCode(ErrorCodes.RESOURCE_NOT_FOUND);
 * }</pre>
 */
public final class ErrorAssert {

  private final McpException error;
  private final String what;

  ErrorAssert(McpException error, String what) {
    this.error = error;
    this.what = what;
  }

  /** Checks the JSON-RPC error code. */
  public ErrorAssert hasCode(int expected) {
    if (error.code() != expected) {
      throw new AssertionFailedError("expected " + what + " to fail with JSON-RPC error code "
          + expected + " but the code was " + error.code() + " (\"" + error.getMessage() + "\")",
          expected, error.code());
    }
    return this;
  }

  /** Checks the whole message. */
  public ErrorAssert hasMessage(String expected) {
    if (!expected.equals(error.getMessage())) {
      throw new AssertionFailedError("expected " + what + " to fail with message \"" + expected
          + "\" but the message was \"" + error.getMessage() + "\" (code " + error.code() + ")",
          expected, error.getMessage());
    }
    return this;
  }

  /** Checks that the message contains {@code part}. */
  public ErrorAssert messageContains(String part) {
    String message = error.getMessage() == null ? "" : error.getMessage();
    if (!message.contains(part)) {
      throw new AssertionFailedError("expected " + what + "'s error message to contain \"" + part
          + "\" but it was \"" + message + "\" (code " + error.code() + ")", part, message);
    }
    return this;
  }

  /** Returns the error, for anything else. */
  public McpException error() {
    return error;
  }
}
