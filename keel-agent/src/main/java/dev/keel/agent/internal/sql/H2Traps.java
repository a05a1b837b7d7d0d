package dev.keel.agent.internal.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The statement check's H2 part: an embedded H2 computes every value in the agent's own heap,
 * and when it runs out of memory inside a statement it closes the whole database. Functions
 * that build a value whose size is an argument ({@code REPEAT('x', 100000000)}) would make one
 * allocation of any size, too fast and too whole for {@code H2MemoryGuard} to stop; here their
 * sizes must be numbers written in the statement, at most {@value #MAX_BUILT_CHARS} characters
 * for the whole statement, and they may not nest (their sizes would multiply). {@code EXPAND}
 * (LZF decompression) is refused: a short literal expands to any size.
 *
 * <p>This is a refusal of the plain forms, not a bound: other functions grow values too
 * ({@code REPLACE} with a long replacement, a value that doubles in each step of a recursive
 * query). docs/agent.md says what is left.
 */
final class H2Traps {

  /** The most characters (or bytes) the size arguments of one statement may ask for. */
  static final int MAX_BUILT_CHARS = 1_000_000;

  /** Functions that build a value of a size given as an argument, by that argument's index. */
  private static final Map<String, Integer> BUILDERS = Map.of("repeat", 1, "space", 0,
      "lpad", 1, "rpad", 1, "secure_rand", 0);

  private H2Traps() {}

  static void check(List<SqlToken> tokens) {
    long built = 0;
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken t = tokens.get(i);
      if (!t.isName() || !tokens.get(i + 1).is("(")) {
        continue;
      }
      String name = t.value().toLowerCase(Locale.ROOT);
      if (name.equals("expand")) {
        throw new QueryRefusedException("EXPAND is not allowed on the embedded H2 database: "
            + "it decompresses to a value of any size in the agent's own memory");
      }
      Integer sizeArgument = BUILDERS.get(name);
      if (sizeArgument == null) {
        continue;
      }
      int close = QueryCheck.closing(tokens, i + 1);
      List<List<SqlToken>> arguments = arguments(tokens, i + 1, close);
      for (int k = i + 2; k < close; k++) {
        if (tokens.get(k).isName() && k + 1 < close && tokens.get(k + 1).is("(")
            && BUILDERS.containsKey(tokens.get(k).value().toLowerCase(Locale.ROOT))) {
          throw refusal(name, "may not take the value of another such function");
        }
      }
      if (arguments.size() <= sizeArgument) {
        continue;
      }
      long size = literal(arguments.get(sizeArgument));
      if (size < 0) {
        throw refusal(name, "needs its length written as a whole number in the query");
      }
      if (name.equals("repeat")) {
        List<SqlToken> text = arguments.get(0);
        if (text.size() != 1 || text.get(0).kind() != SqlToken.Kind.STRING) {
          throw refusal(name, "needs its text written as a string in the query");
        }
        size *= text.get(0).value().length();
      }
      built += size;
      if (built > MAX_BUILT_CHARS) {
        throw refusal(name, "would build more than " + MAX_BUILT_CHARS + " characters");
      }
    }
  }

  private static QueryRefusedException refusal(String function, String why) {
    return new QueryRefusedException("On the embedded H2 database, "
        + function.toUpperCase(Locale.ROOT) + " " + why + " (at most " + MAX_BUILT_CHARS
        + " characters in all): H2 computes values in the agent's own memory");
  }

  /** Returns the value of an argument that is one whole number, or -1. */
  private static long literal(List<SqlToken> argument) {
    if (argument.size() != 1 || argument.get(0).kind() != SqlToken.Kind.NUMBER) {
      return -1;
    }
    String text = argument.get(0).value();
    if (text.isEmpty() || text.length() > 10 || !text.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    return Long.parseLong(text);
  }

  /** The top-level arguments between the parentheses at {@code open} and {@code close}. */
  private static List<List<SqlToken>> arguments(List<SqlToken> tokens, int open, int close) {
    List<List<SqlToken>> arguments = new ArrayList<>();
    List<SqlToken> current = new ArrayList<>();
    int depth = 0;
    for (int k = open + 1; k < close; k++) {
      SqlToken t = tokens.get(k);
      if (t.is("(") || t.is("[")) {
        depth++;
      } else if (t.is(")") || t.is("]")) {
        depth--;
      }
      if (depth == 0 && t.is(",")) {
        arguments.add(current);
        current = new ArrayList<>();
      } else {
        current.add(t);
      }
    }
    if (!current.isEmpty() || !arguments.isEmpty()) {
      arguments.add(current);
    }
    return arguments;
  }

}
