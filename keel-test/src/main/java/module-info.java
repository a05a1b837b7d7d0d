/**
 * Keel's test kit: an in-memory transport pair, a test client, the JUnit extension
 * ({@code @McpTest}, {@code @McpTestServer}) and assertions. The extension injects into test
 * fields, so a modular test opens its package to this module.
 */
module dev.keel.mcp.test {
  requires transitive dev.keel.mcp.server;
  requires transitive dev.keel.mcp.client;
  requires transitive dev.keel.mcp.http;
  requires transitive org.junit.jupiter.api;
  requires org.slf4j;

  exports dev.keel.mcp.test;
}
