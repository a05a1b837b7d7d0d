package dev.keel.mcp.client;

import java.time.Duration;

/**
 * What tests outside this package may see of a client's insides: what it still waits for, what
 * it still reads, and whether its threads ended. Reads the package-private hooks; changes
 * nothing but the one transport setting tests need small.
 */
public final class ClientProbe {

  private ClientProbe() {}

  /** Returns how many requests wait for an answer. */
  public static int pendingRequests(McpClient client) {
    return real(client).pendingRequests();
  }

  /** Returns how many of the server's questions are being answered. */
  public static int questionsInFlight(McpClient client) {
    return real(client).questionsInFlight();
  }

  /** Returns how many request streams the HTTP transport still reads. */
  public static int liveExchanges(McpClient client) {
    return http(client).liveExchanges();
  }

  /**
   * Waits until every thread the client started (readers, handlers) has ended; for a closed
   * client. Counts tasks of the client's executors, so it holds for virtual threads too, which
   * {@link Thread#getAllStackTraces()} does not list.
   */
  public static boolean threadsEnded(McpClient client, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    boolean readers = http(client).awaitReaders(within);
    Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    return real(client).awaitHandlers(left) && readers;
  }

  /** Sets the longest {@code retry:} wait the transport allows (60 s otherwise). */
  public static StreamableHttpTransport.Builder retryCeiling(
      StreamableHttpTransport.Builder builder, Duration value) {
    return builder.retryCeiling(value);
  }

  private static RealMcpClient real(McpClient client) {
    return (RealMcpClient) client;
  }

  private static StreamableHttpTransport http(McpClient client) {
    return (StreamableHttpTransport) client.transport();
  }
}
