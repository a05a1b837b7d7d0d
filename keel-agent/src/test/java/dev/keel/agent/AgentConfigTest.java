package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.server.Principal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The configuration file: read strictly (an unknown key or a typo is an error naming it),
 * passwords only from the environment, row rules and curated tools checked when the agent
 * starts, and curated tools that take parameters from the caller's claims.
 */
class AgentConfigTest {

  static final Map<String, String> ENV = Map.of("SHOP_PASSWORD", "s3cret");

  static AgentConfig parse(String json) {
    return AgentConfig.parse(json, ENV::get);
  }

  @Test
  void unknownKeysAndTyposAreErrorsThatNameTheKey() {
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true}},\"tool\":{}}"))
        .hasMessageContaining("tool: unknown key (did you mean tools?)");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"jdbcUrll\":\"jdbc:h2:mem:x\"}}}"))
        .hasMessageContaining("sources.a.jdbcUrll: unknown key (did you mean jdbcUrl?)");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true,"
        + "\"limits\":{\"maxRow\":5}}}}"))
        .hasMessageContaining("sources.a.limits.maxRow: unknown key (did you mean maxRows?)");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true,\"access\":"
        + "{\"principals\":{\"x\":{\"table\":\"*\"}}}}}}"))
        .hasMessageContaining("principal x: unknown key \"table\"");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true,\"access\":"
        + "{\"principals\":{\"x\":{\"tables\":{\"orders\":{\"row\":\"id = 1\"}}}}}}}}"))
        .hasMessageContaining("table orders: unknown key \"row\"");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true}},\"tools\":{\"t\":{"
        + "\"source\":\"a\",\"description\":\"d\",\"sql\":\"SELECT 1\",\"parameters\":"
        + "[{\"name\":\"p\",\"typ\":\"string\"}]}}}"))
        .hasMessageContaining("tools.t.parameters[0].typ: unknown key (did you mean type?)");
    assertThatThrownBy(() -> parse("{\"sources\":{}}")).hasMessageContaining("sources");
    assertThatThrownBy(() -> parse("{\"sources\":{\"tables\":{\"sample\":true}}}"))
        .hasMessageContaining("reserved");
  }

  @Test
  void passwordsComeFromTheEnvironmentOnly() {
    AgentConfig config = parse("{\"sources\":{\"shop\":{\"jdbcUrl\":\"jdbc:h2:mem:x\","
        + "\"user\":\"reader\",\"passwordEnv\":\"SHOP_PASSWORD\"}}}");
    assertThat(config.sources().get(0).password()).isEqualTo("s3cret");
    assertThat(config.sources().get(0).toString()).doesNotContain("s3cret");
    assertThatThrownBy(() -> parse("{\"sources\":{\"shop\":{\"jdbcUrl\":\"jdbc:h2:mem:x\","
        + "\"passwordEnv\":\"MISSING_VAR\"}}}"))
        .hasMessageContaining("sources.shop.passwordEnv: the environment variable MISSING_VAR "
            + "is not set");
    assertThatThrownBy(() -> parse("{\"sources\":{\"shop\":{\"jdbcUrl\":\"jdbc:h2:mem:x\","
        + "\"password\":\"inline\"}}}"))
        .hasMessageContaining("sources.shop.password: unknown key (did you mean passwordEnv?)");
  }

  @Test
  void rowRulesAndCuratedToolsTheCheckRefusesStopTheStartNamingThem() {
    AgentConfig reachingOut = parse("{\"sources\":{\"a\":{\"sample\":true,\"access\":"
        + "{\"principals\":{\"x\":{\"tables\":{\"orders\":{\"rows\":\"customer_id IN "
        + "(SELECT id FROM audit_log)\"}}}}}}}}");
    assertThatThrownBy(() -> DatabaseAgent.builder().config(reachingOut).build())
        .hasMessageContaining("source a, principal x, table orders")
        .hasMessageContaining("not a condition the agent can use");
    AgentConfig breakingOut = parse("{\"sources\":{\"a\":{\"sample\":true,\"access\":"
        + "{\"principals\":{\"x\":{\"tables\":{\"orders\":{\"rows\":\"1 = 1) OR (1 = 1\"}}}}}}}}");
    assertThatThrownBy(() -> DatabaseAgent.builder().config(breakingOut).build())
        .hasMessageContaining("principal x, table orders");
    AgentConfig writing = parse("{\"sources\":{\"a\":{\"sample\":true}},\"tools\":{\"wipe\":{"
        + "\"source\":\"a\",\"description\":\"d\",\"sql\":\"DELETE FROM orders\"}}}");
    assertThatThrownBy(() -> DatabaseAgent.builder().config(writing).build())
        .hasMessageContaining("tool wipe: its statement is refused");
    AgentConfig miscounted = parse("{\"sources\":{\"a\":{\"sample\":true}},\"tools\":{\"t\":{"
        + "\"source\":\"a\",\"description\":\"d\",\"sql\":\"SELECT * FROM orders WHERE id = ?"
        + " AND status = ?\",\"parameters\":[{\"name\":\"id\",\"type\":\"integer\"}]}}}");
    assertThatThrownBy(() -> DatabaseAgent.builder().config(miscounted).build())
        .hasMessageContaining("tool t: its statement has 2 ? placeholder(s) but 1 parameter(s)");
    AgentConfig elsewhere = parse("{\"sources\":{\"a\":{\"sample\":true}},\"tools\":{\"t\":{"
        + "\"source\":\"b\",\"description\":\"d\",\"sql\":\"SELECT 1\"}}}");
    assertThatThrownBy(() -> DatabaseAgent.builder().config(elsewhere).build())
        .hasMessageContaining("tool t: no source is named b");
  }

  @Test
  void curatedToolsTakeTypedParametersAndClaimsAndAreAudited(@TempDir Path dir)
      throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    AgentConfig config = parse("""
        {"sources": {"shop": {"sample": true, "access": {"principals": {
            "alice": {"tables": {"orders": "*", "customers": ["id", "name"]}}}}}},
         "tools": {
           "orders_by_status": {"source": "shop", "description": "Orders with a status",
             "sql": "SELECT id, status FROM orders WHERE status = ? ORDER BY id LIMIT ?",
             "parameters": [{"name": "status", "type": "string"},
                            {"name": "limit", "type": "integer", "default": 3}]},
           "my_orders": {"source": "shop", "description": "The caller's own orders",
             "sql": "SELECT count(*) FROM orders WHERE customer_id = ?",
             "parameters": [{"name": "customer", "type": "integer", "claim": "customer_id"}]},
           "secrets": {"source": "shop", "description": "Reads what alice may not see",
             "sql": "SELECT email FROM customers"}},
         "audit": {"file": "%s"}}
        """.formatted(audit.toString().replace("\\", "\\\\")));
    try (AgentServer server = new AgentServer("h2", DatabaseAgent.builder().config(config)
        .build(), AgentServer.withClaims(Map.of(
            "alice-token", new Principal("alice", "fp-alice", Map.of("customer_id", 7)),
            "anon-token", new Principal("alice", "fp-anon", Map.of()))))) {
      AgentClient alice = server.client("alice-token").initialize();
      JsonNode tools = alice.request("tools/list", "{}").get("result").get("tools");
      JsonNode curated = null;
      JsonNode mine = null;
      for (JsonNode t : tools) {
        if (t.get("name").asString().equals("orders_by_status")) {
          curated = t;
        }
        if (t.get("name").asString().equals("my_orders")) {
          mine = t;
        }
      }
      assertThat(curated).isNotNull();
      assertThat(curated.get("inputSchema").get("required").toString()).isEqualTo("[\"status\"]");
      assertThat(curated.has("outputSchema")).isTrue();
      assertThat(mine.get("inputSchema").get("properties").has("customer"))
          .as("a parameter from a claim is not offered to the model").isFalse();

      JsonNode shipped = AgentClient.structured(alice.call("orders_by_status",
          "{\"status\":\"shipped\"}"));
      assertThat(shipped.get("rowCount").asInt()).isEqualTo(3);
      assertThat(AgentClient.error(alice.call("orders_by_status",
          "{\"status\":\"shipped\",\"limit\":\"x\"}"))).isNotBlank();
      long own = AgentClient.structured(alice.call("my_orders", "{}")).get("rows").get(0).get(0)
          .asLong();
      assertThat(own).isPositive();
      // the curated statement runs with the caller's view: a hidden column is not found
      assertThat(AgentClient.error(alice.call("secrets", "{}"))).doesNotContain("@");
      AgentClient anon = server.client("anon-token").initialize();
      assertThat(AgentClient.error(anon.call("my_orders", "{}")))
          .contains("needs the claim customer_id");
    }
    List<String> lines = Files.readAllLines(audit);
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"tool\":\"orders_by_status\"")
        .contains("\"outcome\":\"ran\"").contains("\"rows\":3").contains("\"digest\":\""));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"tool\":\"secrets\"")
        .contains("\"outcome\":\"failed\""));
    assertThat(String.join("\n", lines)).doesNotContain("@example").doesNotContain("s3cret");
  }

  @Test
  void theExamplesOfTheReadmeAndTheGuideAreValidConfigurations() throws Exception {
    Map<String, Integer> sourcesByFile = Map.of("README.md", 3, "docs/agent.md", 3);
    for (Map.Entry<String, Integer> file : sourcesByFile.entrySet()) {
      String text = Files.readString(Path.of("..").resolve(file.getKey()));
      java.util.regex.Matcher blocks = java.util.regex.Pattern.compile("```json\\n(.*?)```",
          java.util.regex.Pattern.DOTALL).matcher(text);
      int configurations = 0;
      while (blocks.find()) {
        String json = blocks.group(1);
        if (!json.contains("\"sources\"") || !AgentConfig.isConfiguration(json)) {
          continue;
        }
        configurations++;
        AgentConfig config = AgentConfig.parse(json, variable -> "from-" + variable);
        assertThat(config.sources()).as(file.getKey()).hasSize(file.getValue());
        assertThat(config.tools()).as(file.getKey()).isNotEmpty();
        assertThat(config.sources().stream().map(DatabaseSource::jdbcUrl).toList())
            .as(file.getKey()).anyMatch(u -> u.startsWith("jdbc:postgresql:"))
            .anyMatch(u -> u.startsWith("jdbc:mariadb:"))
            .anyMatch(u -> u.startsWith("jdbc:sqlite:"));
      }
      assertThat(configurations).as(file.getKey() + " shows a configuration of sources")
          .isEqualTo(1);
    }
  }

  @Test
  void quotasOfTheFileApplyPerSourceOverTheTopLevel() {
    AgentConfig config = parse("""
        {"limits": {"queriesPerMinute": 100},
         "sources": {
           "tight": {"sample": true, "limits": {"queriesPerMinute": 2},
                     "access": {"principals": {"alice": {"tables": "*"}}}},
           "loose": {"sample": true, "access": {"principals": {"alice": {"tables": "*"}}}}}}
        """);
    try (AgentServer server = new AgentServer("h2", DatabaseAgent.builder().config(config)
        .build(), Map.of("alice-token", "alice"))) {
      AgentClient alice = server.client("alice-token").initialize();
      for (int i = 0; i < 2; i++) {
        assertThat(AgentClient.structured(alice.call("count_rows",
            "{\"source\":\"tight\",\"table\":\"regions\"}")).get("count").asLong())
            .isPositive();
      }
      assertThat(AgentClient.error(alice.call("count_rows",
          "{\"source\":\"tight\",\"table\":\"regions\"}")))
          .startsWith("Refused: Quota reached: you may run 2 statements a minute");
      assertThat(AgentClient.structured(alice.call("count_rows",
          "{\"source\":\"loose\",\"table\":\"regions\"}")).get("count").asLong())
          .isPositive();
    }
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true,\"limits\":"
        + "{\"queriesPerMinut\":2}}}}")).hasMessageContaining("queriesPerMinut")
        .hasMessageContaining("did you mean queriesPerMinute");
  }

  @Test
  void theAuditTableTakesItsPasswordFromTheEnvironmentAndIsReadStrictly() {
    AgentConfig config = parse("{\"sources\":{\"a\":{\"sample\":true}},\"audit\":{\"table\":"
        + "{\"jdbcUrl\":\"jdbc:postgresql://127.0.0.1/ops\",\"user\":\"keel_audit\","
        + "\"passwordEnv\":\"SHOP_PASSWORD\",\"name\":\"ops.agent_audit\"}}}");
    assertThat(config.auditFile()).isNull();
    assertThat(config.auditTable()).isEqualTo(new AuditTable("jdbc:postgresql://127.0.0.1/ops",
        "keel_audit", "s3cret", "ops.agent_audit"));
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true}},\"audit\":"
        + "{\"table\":{\"jdbcUrl\":\"jdbc:sqlite:/tmp/a.db\",\"nam\":\"t\"}}}"))
        .hasMessageContaining("audit.table.nam").hasMessageContaining("did you mean name");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true}},\"audit\":{}}"))
        .hasMessageContaining("audit needs a file, a table or both");
    assertThatThrownBy(() -> parse("{\"sources\":{\"a\":{\"sample\":true}},\"audit\":"
        + "{\"table\":{\"jdbcUrl\":\"jdbc:sqlite:/tmp/a.db\",\"name\":\"a b\"}}}"))
        .hasMessageContaining("audit.table: the audit table's name must be");
  }
}
