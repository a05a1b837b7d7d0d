package dev.keel.mcp.server;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import tools.jackson.databind.node.ObjectNode;

/** Protocol errors handlers commonly throw, shaped as the specification defines them. */
public final class McpErrors {

  private McpErrors() {}

  /**
   * Returns "resource not found" for {@code uri}: {@code -32002} with {@code data.uri}. (The
   * stateless era answers {@code -32602}; the dispatcher rewrites the code per era.)
   */
  public static McpException resourceNotFound(String uri) {
    ObjectNode data = McpJson.object();
    data.put("uri", uri);
    return new McpException(ErrorCodes.RESOURCE_NOT_FOUND,
        "Resource not found: " + Text.safe(uri), data);
  }

  /** Returns {@code -32602} with a peer-safe message. */
  public static McpException invalidParams(String message) {
    return McpException.invalidParams(message);
  }

  /**
   * Returns {@code -32021}: the client lacks a capability this request needs. A dotted name
   * ({@code "elicitation.url"}) names a refinement; {@code data.requiredCapabilities} is the
   * capability object the client would have to declare ({@code {"elicitation":{"url":{}}}}).
   */
  public static McpException missingCapability(String capability) {
    ObjectNode data = McpJson.object();
    ObjectNode node = data.putObject("requiredCapabilities");
    for (String part : capability.split("\\.")) {
      node = node.putObject(part);
    }
    return new McpException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability: " + capability, data);
  }

  /**
   * Returns {@code -32021}: the client did not declare an extension this request needs;
   * {@code data.requiredCapabilities} is {@code {"extensions": {id: {}}}}.
   */
  public static McpException missingExtension(String id) {
    ObjectNode data = McpJson.object();
    data.putObject("requiredCapabilities").putObject("extensions").putObject(id);
    return new McpException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability: extension " + id, data);
  }
}
