/**
 * Keel on OpenTelemetry: a span for every request a Keel server serves (kind SERVER) and a
 * Keel client sends (kind CLIENT), after the OpenTelemetry semantic conventions for MCP, with
 * the trace context carried in each request's {@code params._meta}.
 */
module dev.keel.mcp.opentelemetry {
  requires transitive dev.keel.mcp.server;
  requires transitive dev.keel.mcp.client;
  requires transitive io.opentelemetry.api;
  requires transitive io.opentelemetry.context;

  exports dev.keel.mcp.opentelemetry;
}
