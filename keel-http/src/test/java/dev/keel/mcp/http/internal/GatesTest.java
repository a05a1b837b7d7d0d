package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The header checks behind the HTTP gates (the body reader's are in {@link BodyBufferTest}). */
class GatesTest {

  @Test
  void onlyApplicationJsonIsJson() {
    assertThat(Gates.isJson("application/json")).isTrue();
    assertThat(Gates.isJson("Application/JSON; charset=utf-8")).isTrue();
    assertThat(Gates.isJson("text/plain")).isFalse();
    assertThat(Gates.isJson("application/jsonx")).isFalse();
    assertThat(Gates.isJson(null)).isFalse();
  }

  @Test
  void sessionIdsAreVisibleAsciiAndBounded() {
    assertThat(Gates.validSessionId("abc-DEF_123.~!")).isTrue();
    assertThat(Gates.validSessionId("with space")).isFalse();
    assertThat(Gates.validSessionId("tab\there")).isFalse();
    assertThat(Gates.validSessionId("caf\u00e9")).isFalse();
    assertThat(Gates.validSessionId("")).isFalse();
    assertThat(Gates.validSessionId("x".repeat(128))).isTrue();
    assertThat(Gates.validSessionId("x".repeat(129))).isFalse();
  }
}
