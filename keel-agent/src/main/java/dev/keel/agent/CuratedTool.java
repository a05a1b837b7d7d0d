package dev.keel.agent;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A tool the operator wrote: a named, described, read-only statement with typed {@code ?}
 * parameters, run on one source. A model calls it by name with the parameters; it never sees
 * or writes the SQL. The statement passes the same check as the {@code query} tool when the
 * agent starts (a statement the check refuses stops the start, naming the tool) and again on
 * every call, with the caller's own view, so column and row rules hold for it as well.
 *
 * @param name the tool's name
 * @param description what it answers, for the model
 * @param source the source it runs on
 * @param sql the statement, with one {@code ?} per parameter, in order
 * @param parameters its parameters, in the order of the {@code ?}s
 */
public record CuratedTool(String name, String description, String source, String sql,
    List<Parameter> parameters) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

  /** Checks the fields. */
  public CuratedTool {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a tool name is a letter then up to 63 letters, "
          + "digits, _ or -, not \"" + name + "\"");
    }
    if (description == null || description.isBlank()) {
      throw new IllegalArgumentException("tool " + name + " needs a description");
    }
    Objects.requireNonNull(source, "source");
    if (sql == null || sql.isBlank()) {
      throw new IllegalArgumentException("tool " + name + " needs its sql");
    }
    parameters = parameters == null ? List.of() : List.copyOf(parameters);
    long distinct = parameters.stream().map(Parameter::name).distinct().count();
    if (distinct != parameters.size()) {
      throw new IllegalArgumentException("tool " + name + " names a parameter twice");
    }
  }

  /**
   * One parameter.
   *
   * @param name its name in the call's arguments
   * @param type {@code string}, {@code integer}, {@code number} or {@code boolean}
   * @param description what it means, for the model
   * @param required whether a call must give it (ignored when it has a default or a claim)
   * @param defaultValue the value when the call leaves it out (a String, Number or Boolean), or
   *     null
   * @param claim the claim of the caller's credentials it is filled from, or null; such a
   *     parameter is not offered to the model at all, and a caller without the claim is refused
   */
  public record Parameter(String name, String type, String description, boolean required,
      Object defaultValue, String claim) {

    /** The types a parameter may have. */
    public static final Set<String> TYPES = Set.of("string", "integer", "number", "boolean");

    /** Checks the fields. */
    public Parameter {
      Objects.requireNonNull(name, "name");
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("a parameter name is a letter then letters, digits, "
            + "_ or -, not \"" + name + "\"");
      }
      if (!TYPES.contains(type)) {
        throw new IllegalArgumentException("parameter " + name + ": type must be one of "
            + new java.util.TreeSet<>(TYPES) + ", not \"" + type + "\"");
      }
      if (defaultValue != null && !(defaultValue instanceof String
          || defaultValue instanceof Number || defaultValue instanceof Boolean)) {
        throw new IllegalArgumentException("parameter " + name + ": a default is a string, "
            + "number or boolean");
      }
    }

    /** A required parameter the model gives. */
    public static Parameter of(String name, String type, String description) {
      return new Parameter(name, type, description, true, null, null);
    }

    /** A parameter filled from the caller's claim {@code claim}. */
    public static Parameter fromClaim(String name, String type, String claim) {
      return new Parameter(name, type, null, true, null, Objects.requireNonNull(claim, "claim"));
    }
  }
}
