package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class SmokeTest {
  @Test
  void h2() {
    try (AgentServer s = AgentServer.h2(AgentLimits.defaults(), false)) {
      AgentClient c = s.client(AgentServer.ADMIN).initialize();
      JsonNode r = c.call("query", "{\"sql\":\"SELECT country, count(*) FROM customers GROUP BY country ORDER BY 2 DESC\"}");
      System.out.println(r);
      System.out.println(c.call("list_tables", "{}"));
      System.out.println(c.call("describe_table", "{\"table\":\"orders\"}"));
      AgentClient a = s.client(AgentServer.ANALYST).initialize();
      System.out.println(a.call("query", "{\"sql\":\"SELECT * FROM employees\",\"maxRows\":2}"));
      System.out.println(a.call("query", "{\"sql\":\"SELECT salary FROM employees\"}"));
      System.out.println(a.call("top_values", "{\"table\":\"orders\",\"column\":\"status\"}"));
      System.out.println(a.call("explain", "{\"sql\":\"SELECT * FROM orders WHERE id = ?\",\"params\":[5]}"));
      assertThat(r.toString()).contains("DE");
    }
  }

  @Test
  void pg() {
    try (AgentServer s = AgentServer.postgres("keel_smoke", AgentLimits.defaults(), false)) {
      AgentClient c = s.client(AgentServer.ADMIN).initialize();
      JsonNode r = c.call("query", "{\"sql\":\"SELECT country, count(*) FROM customers GROUP BY country ORDER BY 2 DESC\"}");
      System.out.println(r);
      System.out.println(c.call("describe_table", "{\"table\":\"orders\"}"));
      AgentClient a = s.client(AgentServer.ANALYST).initialize();
      System.out.println(a.call("query", "{\"sql\":\"SELECT * FROM employees\",\"maxRows\":2}"));
      System.out.println(a.call("query", "{\"sql\":\"SELECT e FROM employees e\",\"maxRows\":2}"));
      System.out.println(a.call("query", "{\"sql\":\"SELECT salary FROM employees\"}"));
      System.out.println(a.call("count_rows", "{\"table\":\"orders\",\"filters\":[{\"column\":\"ordered_at\",\"op\":\">=\",\"value\":\"2025-01-01\"}]}"));
      System.out.println(a.call("explain", "{\"sql\":\"SELECT * FROM orders WHERE id = ?\",\"params\":[5]}"));
      assertThat(r.toString()).contains("DE");
    }
  }
}
