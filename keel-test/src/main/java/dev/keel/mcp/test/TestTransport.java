package dev.keel.mcp.test;

/**
 * How a test reaches the server under test.
 *
 * <pre>{@code
 * McpTestClient client = McpTestClient.builder(server).transport(TestTransport.HTTP).connect();
 * }</pre>
 */
public enum TestTransport {
  /** In the same JVM through {@link InMemoryServerTransport}: no socket, the fastest. */
  IN_MEMORY,
  /**
   * Over real Streamable HTTP: an embedded {@code McpHttpServer} on {@code 127.0.0.1}, port 0,
   * started for the client and stopped with it, so the HTTP gates, headers and SSE streams are
   * in the path.
   */
  HTTP;

  /** Returns the name tests show: {@code in-memory} or {@code http}. */
  public String displayName() {
    return this == IN_MEMORY ? "in-memory" : "http";
  }
}
