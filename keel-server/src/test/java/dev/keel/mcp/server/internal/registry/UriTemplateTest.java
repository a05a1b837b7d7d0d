package dev.keel.mcp.server.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UriTemplateTest {

  @Test
  void matchesAndReturnsEveryVariableByName() {
    UriTemplate template = UriTemplate.parse("users://{org}/{user}/profile");

    assertThat(template.variables()).containsExactly("org", "user");
    assertThat(template.template()).isEqualTo("users://{org}/{user}/profile");
    assertThat(template.match("users://acme/ada/profile"))
        .contains(Map.of("org", "acme", "user", "ada"));
  }

  @Test
  void percentDecodesCapturedValues() {
    UriTemplate template = UriTemplate.parse("file:///docs/{name}");

    assertThat(template.match("file:///docs/a%20b%2Fc%C3%A9.txt"))
        .contains(Map.of("name", "a b/cé.txt"));
  }

  @Test
  void plusIsKeptLiterallyNotDecodedAsASpace() {
    UriTemplate template = UriTemplate.parse("calc://{expr}");

    assertThat(template.match("calc://1+2")).contains(Map.of("expr", "1+2"));
  }

  @Test
  void malformedPercentEscapeDoesNotMatch() {
    UriTemplate template = UriTemplate.parse("file:///{name}");

    assertThat(template.match("file:///bad%zz")).isEmpty();
    assertThat(template.match("file:///trailing%")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"users://acme/ada/extra/profile", "users://acme/ad/a/profile"})
  void slashInsideAVariableDoesNotMatch(String uri) {
    UriTemplate template = UriTemplate.parse("users://{org}/{user}/profile");

    assertThat(template.match(uri)).isEmpty();
  }

  @Test
  void queryOrFragmentCharactersInsideAVariableDoNotMatch() {
    UriTemplate template = UriTemplate.parse("db://{table}");

    assertThat(template.match("db://t?drop=1")).isEmpty();
    assertThat(template.match("db://t#frag")).isEmpty();
    assertThat(template.match("db://t")).contains(Map.of("table", "t"));
  }

  @Test
  void emptyVariableDoesNotMatch() {
    UriTemplate template = UriTemplate.parse("users://{org}/x");

    assertThat(template.match("users:///x")).isEmpty();
  }

  @Test
  void wholeUriMustMatchNotJustAPrefixOrSuffix() {
    UriTemplate template = UriTemplate.parse("res://{id}/data");

    assertThat(template.match("res://1/data/more")).isEmpty();
    assertThat(template.match("xres://1/data")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"files://{+path}", "search://q{?term}", "doc://{#section}",
      "list://{items*}", "map://{x,y}", "x://{/seg}", "y://{.ext}", "z://{;p}", "w://{&q}",
      "broken://{name", "broken://name}", "empty://{}"})
  void operatorsAndMalformedExpressionsAreRejectedAtParse(String text) {
    assertThatThrownBy(() -> UriTemplate.parse(text))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void repeatedVariableIsRejectedAtParse() {
    assertThatThrownBy(() -> UriTemplate.parse("a://{x}/{x}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("repeats");
  }

  @Test
  void regexCharactersInTheTemplateAreLiteral() {
    UriTemplate template = UriTemplate.parse("db://a.b/(x)[y]*+$^|\\d/{id}");

    assertThat(template.match("db://a.b/(x)[y]*+$^|\\d/42")).contains(Map.of("id", "42"));
    assertThat(template.match("db://aXb/(x)[y]*+$^|\\d/42")).isEmpty();
    assertThat(template.match("db://a.b/x[y]*+$^|\\d/42")).isEmpty();
    assertThat(template.match("db://a.b/(x)y/42")).isEmpty();
  }

  @Test
  void questionMarkInALiteralIsLiteral() {
    UriTemplate template = UriTemplate.parse("search://items?q={term}");

    assertThat(template.match("search://items?q=shoes")).contains(Map.of("term", "shoes"));
    assertThat(template.match("search://itemq=shoes")).isEmpty();
  }

  @Test
  void templateWithoutVariablesMatchesOnlyItself() {
    UriTemplate template = UriTemplate.parse("config://app.json");

    assertThat(template.variables()).isEmpty();
    assertThat(template.match("config://app.json")).contains(Map.of());
    assertThat(template.match("config://appxjson")).isEmpty();
  }

  /**
   * Found by UriTemplateFuzzTest (a 178-second unit in CI): the URI is the client's, and a
   * regular expression with several variables backtracks over every way to split it, so
   * {@code {c}{D}{a}{s}{u}{tu}{t}{d}d} against 120 characters that never end in {@code d} took
   * minutes, and {@code {a}-{b}-{c}} against a long run of dashes grows as its cube. Matching is
   * now linear in the URI per variable. The timeout only catches a hang; the old code needs
   * far longer than it on these inputs.
   */
  @Test
  void aUriThatCannotMatchIsRefusedWithoutTryingEverySplit() {
    String controls = "\u0003".repeat(120);
    assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
      assertThat(UriTemplate.parse("{c}{D}{a}{s}{u}{tu}{t}{d}d").match(controls)).isEmpty();
      assertThat(UriTemplate.parse("x://{a}-{b}-{c}-{d}.json").match(
          "x://" + "-".repeat(5000) + ".jsonx")).isEmpty();
    });
  }

  @Test
  void severalVariablesSplitAsTheLeftmostLongestMatch() {
    UriTemplate template = UriTemplate.parse("x://{a}-{b}-{c}");

    assertThat(template.match("x://1-2-3-4-5")).contains(Map.of("a", "1-2-3", "b", "4", "c", "5"));
    assertThat(UriTemplate.parse("f:///{name}.{ext}").match("f:///a.tar.gz"))
        .contains(Map.of("name", "a.tar", "ext", "gz"));
    assertThat(UriTemplate.parse("{a}{b}").match("xyz")).contains(Map.of("a", "xy", "b", "z"));
    assertThat(template.match("x://1-2-")).isEmpty();
    assertThat(template.match("x://1/-2-3")).isEmpty();
    assertThat(template.match("x://--")).isEmpty();
  }
}
