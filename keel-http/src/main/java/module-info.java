/**
 * Streamable HTTP for Keel servers: the Jakarta Servlet 6 transport ({@code McpServlet}), the
 * embedded Jetty 12 launcher ({@code McpHttpServer}), the OAuth resource server
 * ({@code OAuthResourceServer}), the event store SPI for resumable streams and the operator
 * console ({@code Console}).
 */
module dev.keel.mcp.http {
  requires transitive dev.keel.mcp.server;
  requires transitive jakarta.servlet;
  requires com.github.benmanes.caffeine;
  requires com.nimbusds.jose.jwt;
  requires java.net.http;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.ee10.servlet;
  requires org.slf4j;

  exports dev.keel.mcp.http;
  exports dev.keel.mcp.http.console;
  exports dev.keel.mcp.http.spi;
}
