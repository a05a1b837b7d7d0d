package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.RequestTimeoutException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stdio server that writes a 100 MB line without a line end: the client reads at most
 * {@code maxLineBytes} of it and fails the connection, rather than buffering it all (or waiting
 * for the rest of it forever). The server is a JVM running {@link HugeLineServer}, started by
 * argument list.
 */
class StdioBoundedTest {

  private static final long HUNDRED_MB = 100L * 1024 * 1024;
  private static final int MAX_LINE = 1024 * 1024;

  static List<String> command(String... args) throws URISyntaxException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classes = Path.of(HugeLineServer.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx32m", "-cp", classes,
        HugeLineServer.class.getName()));
    command.addAll(List.of(args));
    return command;
  }

  private static McpClient.Builder client(StdioTransport transport) {
    // generous timeouts: the failure must come from the bound, not from a timeout
    return McpClient.builder(transport).era(Era.LEGACY)
        .connectTimeout(Duration.ofSeconds(30))
        .requestTimeout(Duration.ofSeconds(30));
  }

  @Test
  void inv59_stdioLineOverTheLimitDuringTheHandshakeFailsTheConnection() throws Exception {
    StdioTransport transport = StdioTransport.builder(
        command("handshake", Long.toString(HUNDRED_MB))).maxLineBytes(MAX_LINE).build();

    Throwable thrown = catchThrowable(() -> client(transport).connect());

    assertThat(thrown).isInstanceOf(ConnectionClosedException.class)
        .isNotInstanceOf(RequestTimeoutException.class)
        .hasMessageContaining("over " + MAX_LINE + " bytes");
    // the failed connect closed the transport, and with it the process
    assertThat(transport.process().isAlive()).isFalse();
  }

  @Test
  void inv59_stdioLineOverTheLimitLaterFailsTheConnection() throws Exception {
    StdioTransport transport = StdioTransport.builder(
        command("later", Long.toString(HUNDRED_MB))).maxLineBytes(MAX_LINE).build();
    try (McpClient client = client(transport).connect()) {
      Process server = transport.process();

      assertThatThrownBy(client::listTools).isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("over " + MAX_LINE + " bytes");
      // the connection stays failed: nothing more is waited for
      assertThatThrownBy(client::ping).isInstanceOf(ConnectionClosedException.class);
      client.close();
      await().atMost(Duration.ofSeconds(20)).until(() -> !server.isAlive());
    }
  }

  @Test
  void inv61_stdioServerStderrIsEscapedAndCappedInTheLog() throws Exception {
    StdioTransport transport = StdioTransport.builder(command("stderr")).build();
    try (LogCapture log = new LogCapture(); McpClient client = client(transport).connect()) {
      client.ping();

      await().atMost(Duration.ofSeconds(20)).until(() -> log.text().contains("server stderr"));
      PeerTextTest.assertSafeLog(log.text());
      assertThat(log.text()).contains("server stderr: \\u001b[31mred");
    }
  }
}
