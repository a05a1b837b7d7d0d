package dev.keel.examples.spring.clock;

import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.ToolParam;
import java.time.Clock;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.springframework.stereotype.Component;

/** A plain Spring bean whose annotated methods become MCP tools. */
@Component("clock")
class ClockTools {

  private final Clock clock = Clock.systemUTC();

  @McpTool(description = "The current time in a time zone (UTC when none is given)",
      readOnly = true, nonBlocking = true)
  String now(@ToolParam(description = "an IANA zone such as Europe/Paris", required = false)
      String zone) {
    ZoneId id = zone == null || zone.isBlank() ? ZoneId.of("UTC") : ZoneId.of(zone);
    return ZonedDateTime.now(clock.withZone(id)).toString();
  }
}
