package dev.keel.mcp.core;

/**
 * JSON-RPC and MCP error codes, named as the specification names them.
 *
 * <p>Codes from -32020 to -32099 are reserved for the MCP specification (2026-07-28); Keel emits
 * only the ones defined there.
 */
public final class ErrorCodes {

  /** Invalid JSON was received. */
  public static final int PARSE_ERROR = -32700;
  /** The JSON is not a valid JSON-RPC request object. */
  public static final int INVALID_REQUEST = -32600;
  /** The method does not exist or is not available. */
  public static final int METHOD_NOT_FOUND = -32601;
  /** Invalid method parameters. */
  public static final int INVALID_PARAMS = -32602;
  /** Internal error; details stay in the server log. */
  public static final int INTERNAL_ERROR = -32603;
  /** Implementation-defined server error; Keel uses it for "server busy" (HTTP 503). */
  public static final int SERVER_ERROR = -32000;
  /**
   * Keel: the caller may not do this; the body of HTTP 401 and 403 refusals, and the answer to a
   * call the caller's OAuth scopes do not cover where no 403 can be sent.
   */
  public static final int UNAUTHORIZED = -32001;
  /** Legacy eras only: the resource does not exist. */
  public static final int RESOURCE_NOT_FOUND = -32002;
  /** 2026-07-28: an HTTP header does not match the body. */
  public static final int HEADER_MISMATCH = -32020;
  /** 2026-07-28: the client did not declare a capability the request needs. */
  public static final int MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
  /** 2026-07-28: the protocol version is not supported. */
  public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;
  /** 2025-11-25: a URL-mode elicitation must complete first. */
  public static final int URL_ELICITATION_REQUIRED = -32042;
  /**
   * Keel: the server's operator cancelled the request (the code LSP gives a cancelled request).
   * A client's own cancel gets no answer; this one does, so the waiting client learns of it,
   * and a Keel client turns it into {@link RequestCancelledException}.
   */
  public static final int REQUEST_CANCELLED = -32800;

  private ErrorCodes() {}
}
