package dev.keel.mcp.spring;

import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ServerMetrics;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Keel in {@code /actuator/health} (component {@code keel}): up while the server serves, with
 * its live counts as details. Reading them is cheap and never blocks (see
 * {@link ServerMetrics}), so a health probe costs the server nothing.
 */
final class KeelHealthIndicator implements HealthIndicator {

  private final McpServer server;

  KeelHealthIndicator(McpServer server) {
    this.server = server;
  }

  @Override
  public Health health() {
    ServerMetrics m = server.metrics();
    return Health.up()
        .withDetail("server", server.info().name() + " " + server.info().version())
        .withDetail("sessions", m.sessions())
        .withDetail("inFlightRequests", m.inFlightRequests())
        .withDetail("listeningStreams", m.listeningStreams())
        .withDetail("runningTasks", m.runningTasks())
        .withDetail("refusedRequests", m.refusedRequests())
        .build();
  }
}
