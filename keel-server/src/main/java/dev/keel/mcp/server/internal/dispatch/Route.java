package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.protocol.McpMethod;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.internal.registry.ToolEntry;

/**
 * Where a request goes, resolved once when the call is made: the method's handler and, for
 * {@code tools/call}, the tool and its options. Everything after it (the hand-off, the timeout,
 * whether it may run inline, the timeout message) reads this instead of looking again.
 *
 * @param method the protocol method
 * @param handler its handler
 * @param tool the tool a {@code tools/call} names, or null (unknown tools fail in the handler)
 * @param requiredScopes the scopes the named tool, resource, template or prompt needs
 */
record Route(McpMethod method, MethodHandler handler, ToolEntry tool,
    java.util.Set<String> requiredScopes) {

  /** Returns the options of the tool, or the defaults. */
  ToolOptions options() {
    return tool == null ? ToolOptions.defaults() : tool.options();
  }

  /** Returns true when the handler is the server author's code, which runs under a timeout. */
  boolean userCode() {
    return method.userCode();
  }

  /** Returns true for a tool registered as non-blocking: it may run on the caller's thread. */
  boolean inline() {
    return tool != null && tool.options().nonBlocking();
  }
}
