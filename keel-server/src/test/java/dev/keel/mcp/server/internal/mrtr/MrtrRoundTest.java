package dev.keel.mcp.server.internal.mrtr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * One round of a multi-round-trip request: what the handler used is what is sealed into the
 * next {@code requestState}, so an answer used in round 2 is still there in round 3; a question
 * without an answer is not recorded as used.
 */
class MrtrRoundTest {

  @Test
  void onlyTheAnswersTheHandlerReadAreCarriedForward() {
    ObjectNode available = McpJson.object();
    available.putObject("name").put("action", "accept");
    available.putObject("unused").put("action", "accept");
    MrtrRound round = new MrtrRound(2, available);
    assertThat(round.round()).isEqualTo(2);

    assertThat(round.answer("name").get("action").asString()).isEqualTo("accept");
    assertThat(round.answer("age")).isNull();

    assertThat(round.consumed().propertyNames()).containsExactly("name");
    assertThat(round.consumed().get("name")).isEqualTo(available.get("name"));
  }
}
