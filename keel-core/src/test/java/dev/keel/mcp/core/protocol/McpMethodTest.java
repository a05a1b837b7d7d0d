package dev.keel.mcp.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The method table agrees with the protocol's rules that depend on it. */
class McpMethodTest {

  @Test
  void callsThatDoSomethingAreNeverIdempotent() {
    assertThat(McpMethod.TOOLS_CALL.idempotent()).isFalse();
    assertThat(McpMethod.TASKS_UPDATE.idempotent()).isFalse();
    assertThat(McpMethod.INITIALIZE.idempotent()).isFalse();
    assertThat(McpMethod.ELICITATION_CREATE.idempotent()).isFalse();
  }

  @Test
  void theStatelessEraNamesItsTargets() {
    assertThat(McpMethod.TOOLS_CALL.targetParam()).isEqualTo("name");
    assertThat(McpMethod.PROMPTS_GET.targetParam()).isEqualTo("name");
    assertThat(McpMethod.RESOURCES_READ.targetParam()).isEqualTo("uri");
    assertThat(McpMethod.TASKS_GET.targetParam()).isEqualTo("taskId");
    assertThat(McpMethod.TOOLS_LIST.targetParam()).isNull();
  }

  @Test
  void eachEraHasItsOwnMethods() {
    assertThat(McpMethod.INITIALIZE.in(Era.MODERN)).isFalse();
    assertThat(McpMethod.LOGGING_SET_LEVEL.in(Era.MODERN)).isFalse();
    assertThat(McpMethod.RESOURCES_SUBSCRIBE.in(Era.MODERN)).isFalse();
    assertThat(McpMethod.SERVER_DISCOVER.in(Era.LEGACY)).isFalse();
    assertThat(McpMethod.TASKS_UPDATE.in(Era.LEGACY)).isFalse();
    assertThat(McpMethod.TOOLS_CALL.in(Era.LEGACY)).isTrue();
    assertThat(McpMethod.TOOLS_CALL.in(Era.MODERN)).isTrue();
    assertThat(McpMethod.ELICITATION_CREATE.sender()).isEqualTo(McpMethod.Sender.SERVER);
    for (McpMethod m : McpMethod.values()) {
      assertThat(m.legacy() || m.modern()).as(m.wireName()).isTrue();
      assertThat(McpMethod.of(m.wireName())).contains(m);
    }
    assertThat(McpMethod.of("notifications/progress")).isEmpty();
  }

  @Test
  void onlyUserCodeTakesInputRounds() {
    for (McpMethod m : McpMethod.values()) {
      if (m.inputRounds()) {
        assertThat(m.userCode()).as(m.wireName()).isTrue();
        assertThat(m.modern()).as(m.wireName()).isTrue();
      }
    }
  }
}
