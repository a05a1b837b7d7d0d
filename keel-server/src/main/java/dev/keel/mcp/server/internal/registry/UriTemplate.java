package dev.keel.mcp.server.internal.registry;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
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
 *
 * <p>The URI is the client's, so matching must not depend on how it could be split: a regular
 * expression with several variables backtracks over every split, which a fuzzer turned into
 * minutes for one {@code resources/read} (see {@code UriTemplateTest}). {@link #match} instead
 * marks, from the right, every position where the rest of the template can still match, and then
 * gives each variable from the left the longest value that leaves a match, which is the split the
 * regular expression chose. Its work is the URI's length times the template's.
 */
public final class UriTemplate {

  private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z0-9_]+)}");

  private final String template;
  /** The literal text around the variables: one more than there are variables. */
  private final List<String> literals;
  private final List<String> names;

  private UriTemplate(String template, List<String> literals, List<String> names) {
    this.template = template;
    this.literals = literals;
    this.names = names;
  }

  /**
   * Parses a template.
   *
   * @throws IllegalArgumentException for operators ({@code {+x}}, {@code {?x}}, …) or a repeated
   *     variable, which level 1 does not have
   */
  public static UriTemplate parse(String template) {
    List<String> literals = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Matcher m = VARIABLE.matcher(template);
    int last = 0;
    while (m.find()) {
      literals.add(template.substring(last, m.start()));
      String name = m.group(1);
      if (names.contains(name)) {
        throw new IllegalArgumentException("variable {" + name + "} repeats in " + template);
      }
      names.add(name);
      last = m.end();
    }
    literals.add(template.substring(last));
    for (String literal : literals) {
      if (literal.indexOf('{') >= 0 || literal.indexOf('}') >= 0) {
        throw new IllegalArgumentException("only level-1 {name} variables are supported: "
            + template);
      }
    }
    return new UriTemplate(template, List.copyOf(literals), List.copyOf(names));
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
    int k = names.size();
    int n = uri.length();
    if (k == 0) {
      return uri.equals(literals.get(0)) ? Optional.of(Map.of()) : Optional.empty();
    }
    String lastLiteral = literals.get(k);
    if (!uri.startsWith(literals.get(0)) || !uri.endsWith(lastLiteral)
        || n < literals.get(0).length() + k + lastLiteral.length()) {
      return Optional.empty();
    }
    // stop[q]: where a value starting at q must end at the latest (the next /, ? or #)
    int[] stop = new int[n + 1];
    stop[n] = n;
    for (int q = n - 1; q >= 0; q--) {
      char c = uri.charAt(q);
      stop[q] = c == '/' || c == '?' || c == '#' ? q : stop[q + 1];
    }
    // rest[i] marks each p where literal i and everything after it match uri[p, n)
    BitSet[] rest = new BitSet[k + 1];
    rest[k] = new BitSet(n + 1);
    rest[k].set(n - lastLiteral.length());
    int[] latest = new int[n + 1];
    for (int i = k - 1; i >= 1; i--) {
      latestAtOrBefore(rest[i + 1], latest);
      rest[i] = new BitSet(n + 1);
      String literal = literals.get(i);
      for (int p = 0; p + literal.length() < n; p++) {
        int q = p + literal.length();
        if (latest[stop[q]] > q && uri.startsWith(literal, p)) {
          rest[i].set(p);
        }
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    int q = literals.get(0).length();
    for (int i = 1; i <= k; i++) {
      // the longest value that still leaves a match, as a greedy regular expression would take
      int end = rest[i].previousSetBit(stop[q]);
      if (end <= q) {
        return Optional.empty();
      }
      try {
        values.put(names.get(i - 1), URLDecoder.decode(uri.substring(q, end).replace("+", "%2B"),
            StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
      q = end + literals.get(i).length();
    }
    return Optional.of(Map.copyOf(values));
  }

  /** Fills {@code into[x]} with the last marked position at or before x, or -1. */
  private static void latestAtOrBefore(BitSet marks, int[] into) {
    int latest = -1;
    for (int x = 0; x < into.length; x++) {
      if (marks.get(x)) {
        latest = x;
      }
      into[x] = latest;
    }
  }
}
