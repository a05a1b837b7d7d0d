package dev.keel.mcp.server.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * Fuzzes URI-template matching, where the template is the server author's and the URI the
 * client's: parsing a template either succeeds or names what is wrong; matching never throws;
 * a match gives one value per variable, and with one variable, expanding the template with its
 * value (encoded) gives a URI that matches again with the same value.
 */
class UriTemplateFuzzTest {

  @FuzzTest
  void matchAnything(FuzzedDataProvider data) {
    String templateText = data.consumeString(80);
    String uri = data.consumeRemainingAsString();
    UriTemplate template;
    try {
      template = UriTemplate.parse(templateText);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    Optional<Map<String, String>> match = template.match(uri);
    if (match.isEmpty()) {
      return;
    }
    Map<String, String> values = match.get();
    assertThat(values.keySet()).containsExactlyInAnyOrderElementsOf(template.variables());
    // one pass over the template: a value may itself look like "{name}"
    java.util.regex.Matcher variable =
        java.util.regex.Pattern.compile("\\{([A-Za-z0-9_]+)}").matcher(templateText);
    StringBuilder expanded = new StringBuilder();
    while (variable.find()) {
      variable.appendReplacement(expanded, java.util.regex.Matcher.quoteReplacement(
          URLEncoder.encode(values.get(variable.group(1)), StandardCharsets.UTF_8)
              .replace("+", "%20")));
    }
    variable.appendTail(expanded);
    Optional<Map<String, String>> again = template.match(expanded.toString());
    if (template.variables().size() == 1) {
      assertThat(again).contains(values);
    }
    // With two variables or more the split is the matcher's choice and need not come back: in
    // {a}{b} the greedy split of an expanded "%7B" can cut the escape in two, and a literal
    // between variables may appear inside an encoded value. Matching must still not throw,
    // which the call above shows.
  }
}
