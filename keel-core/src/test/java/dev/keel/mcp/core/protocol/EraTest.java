package dev.keel.mcp.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one era rule, as a table: every combination of method, {@code MCP-Protocol-Version}
 * header, {@code Mcp-Method}/{@code Mcp-Name} headers, {@code _meta} keys and session id that
 * the two eras' specs and the TypeScript SDK's classifier tell apart, with the answer each must
 * get; then the same properties over every combination there is.
 */
class EraTest {

  static final String PV = "io.modelcontextprotocol/protocolVersion";
  static final String CC = "io.modelcontextprotocol/clientCapabilities";

  static ObjectNode params(String meta) {
    ObjectNode params = McpJson.object();
    switch (meta) {
      case "none" -> { }
      case "empty" -> params.putObject("_meta");
      case "version" -> params.putObject("_meta").put(PV, "2026-07-28");
      case "both" -> {
        ObjectNode m = params.putObject("_meta");
        m.put(PV, "2026-07-28");
        m.putObject(CC);
      }
      case "capabilities" -> params.putObject("_meta").putObject(CC);
      case "progress" -> params.putObject("_meta").put("progressToken", 1);
      case "oldversion" -> params.putObject("_meta").put(PV, "2025-11-25");
      default -> throw new IllegalArgumentException(meta);
    }
    return params;
  }

  static String nullable(String value) {
    return value == null || value.equals("-") ? null : value;
  }

  @ParameterizedTest(name = "{0} version={1} session={2} Mcp-Method={3} _meta={4} -> {5}")
  @CsvSource({
      // initialize opens a legacy session whatever else comes with it (mcp-remote sends
      // Mcp-Method on it, and the Keel client's fallback once sent a 2026 version header)
      "initialize, -, -, -, none, LEGACY",
      "initialize, -, -, initialize, none, LEGACY",
      "initialize, 2026-07-28, -, initialize, none, LEGACY",
      "initialize, 2025-11-25, -, -, none, LEGACY",
      // ... unless it carries the stateless era's _meta, which always wins
      "initialize, -, -, -, both, MODERN",
      // a legacy session's requests, with or without the mirrored headers (mcp-remote, curl)
      "tools/list, 2025-11-25, sid, tools/list, none, LEGACY",
      "tools/list, 2025-11-25, sid, -, none, LEGACY",
      "tools/call, 2025-06-18, sid, tools/call, none, LEGACY",
      "tools/call, -, sid, -, none, LEGACY",
      "ping, -, sid, ping, none, LEGACY",
      "notifications/initialized, 2025-11-25, sid, notifications/initialized, none, LEGACY",
      "notifications/cancelled, 2025-11-25, sid, notifications/cancelled, none, LEGACY",
      // legacy without a session (stateless legacy servers, stdio before initialize)
      "tools/list, -, -, -, none, LEGACY",
      "tools/list, 2025-11-25, -, tools/list, none, LEGACY",
      "tools/list, -, -, tools/list, none, LEGACY",
      // _meta with a protocol version: the stateless era, a session id notwithstanding
      "tools/list, 2026-07-28, -, tools/list, both, MODERN",
      "tools/list, -, -, -, both, MODERN",
      "tools/list, 2026-07-28, sid, tools/list, both, MODERN",
      "tools/call, 2025-11-25, sid, tools/call, version, MODERN",
      "tools/call, -, -, -, version, MODERN",
      "tools/call, -, -, -, oldversion, MODERN",
      // _meta without a protocol version is not the stateless era's marker
      "tools/list, -, sid, -, capabilities, LEGACY",
      "tools/list, -, sid, -, progress, LEGACY",
      "tools/list, -, sid, -, empty, LEGACY",
      // the stateless era's own methods are modern (and get its errors)
      "server/discover, -, -, -, none, MODERN",
      "server/discover, 2026-07-28, -, server/discover, both, MODERN",
      "server/discover, 2025-11-25, sid, -, none, MODERN",
      "subscriptions/listen, -, -, -, none, MODERN",
      "tasks/update, -, -, -, none, MODERN",
      // a modern version header without _meta: a stateless request that forgot its _meta
      "tools/list, 2026-07-28, -, tools/list, none, MODERN",
      "tools/list, 2026-07-28, -, -, none, MODERN",
      // ... but inside a legacy session it is the session's (and its version check refuses it)
      "tools/list, 2026-07-28, sid, tools/list, none, LEGACY",
      // an unknown version header decides nothing
      "tools/list, 1999-01-01, -, tools/list, none, LEGACY",
      "unknown/method, -, -, unknown/method, none, LEGACY",
      "unknown/method, 2026-07-28, -, -, none, MODERN"})
  void theTableOfBothEras(String method, String version, String session, String mcpMethod,
      String meta, Era expected) {
    Era.Facts facts = new Era.Facts(method, params(meta), nullable(version), nullable(session),
        nullable(mcpMethod), nullable(mcpMethod) == null ? null : "x");
    assertThat(Era.of(facts)).isEqualTo(expected);
  }

  @Test
  void aResponseIsAlwaysLegacy() {
    assertThat(Era.of(new Era.Facts(null, null, "2026-07-28", null, null, null)))
        .isEqualTo(Era.LEGACY);
    assertThat(Era.of(Era.Facts.of(null, null))).isEqualTo(Era.LEGACY);
  }

  /** Every combination of the inputs, and the properties every answer must have. */
  @Test
  void overEveryCombinationTheMirroredHeadersDecideNothing() {
    List<String> methods = new ArrayList<>();
    for (McpMethod m : McpMethod.values()) {
      methods.add(m.wireName());
    }
    methods.addAll(List.of("notifications/initialized", "notifications/cancelled",
        "unknown/method"));
    String[] versions = {null, "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "bogus"};
    String[] sessions = {null, "sid"};
    String[] metas = {"none", "empty", "version", "both", "capabilities", "progress",
        "oldversion"};
    int combinations = 0;
    for (String method : methods) {
      for (String version : versions) {
        for (String session : sessions) {
          for (String meta : metas) {
            Era plain = Era.of(new Era.Facts(method, params(meta), version, session, null, null));
            for (String mcpMethod : new String[] {method, "other/method"}) {
              for (String mcpName : new String[] {null, "x"}) {
                Era mirrored = Era.of(new Era.Facts(method, params(meta), version, session,
                    mcpMethod, mcpName));
                assertThat(mirrored).as("%s %s %s %s %s", method, version, session, meta,
                    mcpMethod).isEqualTo(plain);
                combinations++;
              }
            }
            boolean metaVersion = meta.equals("version") || meta.equals("both")
                || meta.equals("oldversion");
            if (metaVersion) {
              assertThat(plain).isEqualTo(Era.MODERN);
            } else if (method.equals("initialize")) {
              assertThat(plain).isEqualTo(Era.LEGACY);
            } else if (session != null && !McpMethod.of(method).map(m -> !m.legacy())
                .orElse(false)) {
              assertThat(plain).as("%s in a session", method).isEqualTo(Era.LEGACY);
            }
          }
        }
      }
    }
    assertThat(combinations).isGreaterThan(3_000);
  }
}
