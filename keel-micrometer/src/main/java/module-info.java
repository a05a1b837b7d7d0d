/**
 * Keel on Micrometer: the server's gauges and counters, and timers of every request a Keel
 * server serves and a Keel client sends, named after the OpenTelemetry conventions for MCP.
 */
module dev.keel.mcp.micrometer {
  requires transitive dev.keel.mcp.server;
  requires transitive dev.keel.mcp.client;
  requires transitive micrometer.core;

  exports dev.keel.mcp.micrometer;
}
