package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Random;
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

  @Test
  void acceptAdmitsTheTypeItsWildcardsAndNothingElse() {
    String json = "application/json";
    assertThat(Gates.accepts("application/json, text/event-stream", json)).isTrue();
    assertThat(Gates.accepts("text/event-stream;q=0.9 , APPLICATION/JSON;q=1", json)).isTrue();
    assertThat(Gates.accepts("application/*", json)).isTrue();
    assertThat(Gates.accepts(" */* ", json)).isTrue();
    assertThat(Gates.accepts((String) null, json)).isTrue();
    assertThat(Gates.accepts("text/event-stream", json)).isFalse();
    assertThat(Gates.accepts("application/jsonx", json)).isFalse();
    assertThat(Gates.accepts("application/", json)).isFalse();
    assertThat(Gates.accepts("application/**", json)).isFalse();
    assertThat(Gates.accepts("text/*", json)).isFalse();
    // the Kelvin sign lower-cases to an ASCII k; only ASCII letters may fold
    assertThat(Gates.accepts("application/\u212aSON", json)).isFalse();
    assertThat(Gates.isJson("applicat\u0130on/json")).isFalse();
  }

  /**
   * The scanning checks agree with the plain split-and-compare they replaced, on random headers
   * made of the characters that matter to them.
   */
  @Test
  void theScanningChecksAgreeWithSplitting() {
    String alphabet = "aApPlLiIcCtTnNoOjJsSxXeEvVmMrR/*,; \t=q1.\u212a\u0130";
    String[] types = {"application/json", "text/event-stream"};
    Random random = new Random(22);
    for (int round = 0; round < 200_000; round++) {
      StringBuilder header = new StringBuilder();
      if (round % 3 == 0) {
        header.append(round % 2 == 0 ? " Application/JSON" : "text/Event-Stream ");
      }
      int length = random.nextInt(24);
      for (int i = 0; i < length; i++) {
        header.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String value = header.toString();
      for (String type : types) {
        assertThat(Gates.accepts(value, type)).as("Accept: [%s] for %s", value, type)
            .isEqualTo(acceptsBySplitting(value, type));
      }
      assertThat(Gates.isJson(value)).as("Content-Type: [%s]", value)
          .isEqualTo(value.split(";", 2)[0].trim().toLowerCase(Locale.ROOT)
              .equals("application/json"));
    }
  }

  private static boolean acceptsBySplitting(String accept, String type) {
    if (accept == null || accept.isBlank()) {
      return true;
    }
    String major = type.substring(0, type.indexOf('/'));
    for (String part : accept.split(",")) {
      String media = part.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
      if (media.equals(type) || media.equals("*/*") || media.equals(major + "/*")) {
        return true;
      }
    }
    return false;
  }
}
