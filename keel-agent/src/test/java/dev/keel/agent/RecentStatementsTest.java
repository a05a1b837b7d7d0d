package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent keeps its last audited decisions in memory for an operator's console, with no audit
 * file or table configured: newest first, a refusal marked, long statements cut, the ring
 * bounded.
 */
class RecentStatementsTest {

  @Test
  void theLastDecisionsAreKeptNewestFirstWithRefusalsMarked() {
    DatabaseAgent agent = DatabaseAgent.builder().access(AgentServer.policy()).build();
    try (AgentServer server = new AgentServer("h2", agent, AgentServer.KEYS)) {
      AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
      analyst.call("query", "{\"sql\":\"SELECT name FROM regions\"}");
      analyst.call("query", "{\"sql\":\"DELETE FROM regions\"}");
      String longSql = "SELECT name FROM regions WHERE name <> '" + "x".repeat(900) + "'";
      analyst.call("query", "{\"sql\":\"" + longSql + "\"}");
      List<AuditedStatement> recent = agent.recentStatements();
      assertThat(recent).hasSizeGreaterThanOrEqualTo(3);
      AuditedStatement cut = recent.get(0);
      assertThat(cut.statement()).hasSize(DatabaseAgent.MAX_RECENT_STATEMENT_CHARS + 1)
          .endsWith("…");
      AuditedStatement refused = recent.get(1);
      assertThat(refused.statement()).isEqualTo("DELETE FROM regions");
      assertThat(refused.outcome()).isEqualTo("refused");
      assertThat(refused.refused()).isTrue();
      assertThat(refused.reason()).isNotBlank();
      assertThat(refused.principal()).isEqualTo("analyst");
      AuditedStatement ran = recent.get(2);
      assertThat(ran.outcome()).isEqualTo("ran");
      assertThat(ran.refused()).isFalse();
      assertThat(ran.tool()).isEqualTo("query");
      for (int i = 0; i < 250; i++) {
        analyst.call("count_rows", "{\"table\":\"regions\"}");
      }
      assertThat(agent.recentStatements()).hasSize(200);
    }
  }
}
