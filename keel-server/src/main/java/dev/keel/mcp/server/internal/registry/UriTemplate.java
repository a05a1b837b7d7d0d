package dev.keel.mcp.server.internal.registry;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An RFC 6570 level-1 URI template: literal text and {@code {name}} variables.
 *
 * <p>A level-1 expansion percent-encodes every reserved character, so a variable never spans a
 * {@code /}, {@code ?} or {@code #}; matching follows that and percent-decodes what it captured.
 */
public final class UriTemplate {

  private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z0-9_]+)}");

  private final String template;
  private final Pattern pattern;
  private final List<String> names;

  private UriTemplate(String template, Pattern pattern, List<String> names) {
    this.template = template;
    this.pattern = pattern;
    this.names = names;
  }

  /**
   * Parses a template.
   *
   * @throws IllegalArgumentException for operators ({@code {+x}}, {@code {?x}}, …) or a repeated
   *     variable, which level 1 does not have
   */
  public static UriTemplate parse(String template) {
    StringBuilder regex = new StringBuilder();
    List<String> names = new ArrayList<>();
    Matcher m = VARIABLE.matcher(template);
    int last = 0;
    while (m.find()) {
      regex.append(Pattern.quote(template.substring(last, m.start())));
      String name = m.group(1);
      if (names.contains(name)) {
        throw new IllegalArgumentException("variable {" + name + "} repeats in " + template);
      }
      names.add(name);
      regex.append("([^/?#]+)");
      last = m.end();
    }
    String rest = template.substring(last);
    String literals = VARIABLE.matcher(template).replaceAll("");
    if (literals.indexOf('{') >= 0 || literals.indexOf('}') >= 0) {
      throw new IllegalArgumentException("only level-1 {name} variables are supported: "
          + template);
    }
    regex.append(Pattern.quote(rest));
    return new UriTemplate(template, Pattern.compile(regex.toString()), List.copyOf(names));
  }

  /** Returns the template text. */
  public String template() {
    return template;
  }

  /** Returns the variable names in order. */
  public List<String> variables() {
    return names;
  }

  /** Returns the decoded variables when {@code uri} matches, else empty. */
  public Optional<Map<String, String>> match(String uri) {
    Matcher m = pattern.matcher(uri);
    if (!m.matches()) {
      return Optional.empty();
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      String raw = m.group(i + 1);
      try {
        values.put(names.get(i), URLDecoder.decode(raw.replace("+", "%2B"),
            StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return Optional.of(Map.copyOf(values));
  }
}
