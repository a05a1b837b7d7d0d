package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.McpServer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * How {@link McpHttpServer} sets up Jetty's HTTP/1.1 connection, where nothing else would
 * notice a change: no version headers, and no per-connection header cache (measured slower for
 * MCP's headers, docs/performance.md).
 */
class JettySetupTest {

  @Test
  void theConnectionKeepsNoHeaderCacheAndNamesNoServer() throws Exception {
    McpServer server = McpServer.builder().build();
    McpHttpServer http = McpHttpServer.builder(server).port(0).start();
    try {
      ServerConnector connector = (ServerConnector) http.jetty().getConnectors()[0];
      HttpConfiguration config = connector.getConnectionFactory(HttpConnectionFactory.class)
          .getHttpConfiguration();
      assertThat(config.getHeaderCacheSize()).isZero();
      assertThat(config.getSendServerVersion()).isFalse();
      assertThat(config.getSendXPoweredBy()).isFalse();
      // and it still reads the headers it no longer caches
      Peer peer = new Peer(http.port());
      String session = peer.initialize(null);
      assertThat(peer.ping(null, session)).isEqualTo(200);
    } finally {
      http.close();
      server.close();
    }
  }
}
