package dev.keel.mcp.core;

/** The reserved {@code _meta} keys of the MCP specification that Keel reads or writes. */
public final class MetaKeys {

  /** Modern era: the protocol version of a request. */
  public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  /** Modern era: what the client can do, on every request. */
  public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  /** Modern era: the client's name and version. */
  public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  /** Modern era: the log level a request asks for. */
  public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
  /** Modern era: the server's name and version, on results. */
  public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  /** Modern era: the subscription a notification belongs to. */
  public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
  /** Tasks: the task a message relates to. */
  public static final String RELATED_TASK = "io.modelcontextprotocol/related-task";

  private MetaKeys() {}
}
