/**
 * The Keel MCP client: Streamable HTTP (the JDK's {@code HttpClient}) and stdio transports, the
 * era probe, session epochs and pins, recovery, the MRTR loop and tasks. It reads no server code.
 */
module dev.keel.mcp.client {
  requires transitive dev.keel.mcp.core;
  requires java.net.http;
  requires org.slf4j;

  exports dev.keel.mcp.client;
}
