package dev.keel.agent;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Which tables (and columns) each principal may see. A table or column a principal may not see
 * does not exist for it: it never appears in a list, a resource, a completion or an error.
 *
 * <p>The file form is JSON. {@code "*"} as a table list means every table, as a column list
 * every column; the principal {@code "*"} applies to principals the file does not name. A
 * principal matched by nothing sees nothing.
 *
 * <pre>{@code
 * {
 *   "principals": {
 *     "analyst": {"tables": {"customers": ["id", "name", "country"], "orders": "*"}},
 *     "admin":   {"tables": "*"},
 *     "*":       {"tables": {"products": "*"}}
 *   }
 * }
 * }</pre>
 */
public final class AccessPolicy {

  /** The principal entry that applies to principals the policy does not name. */
  public static final String ANY_PRINCIPAL = "*";

  private static final AccessPolicy ALLOW_ALL = new AccessPolicy(null);

  private final Map<String, TableAccess> byPrincipal;

  private AccessPolicy(Map<String, TableAccess> byPrincipal) {
    this.byPrincipal = byPrincipal == null ? null : Map.copyOf(byPrincipal);
  }

  /** Returns the policy that lets every principal see everything (the default). */
  public static AccessPolicy allowAll() {
    return ALLOW_ALL;
  }

  /** Returns a builder of a policy that shows nothing until granted. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads a policy file.
   *
   * @throws UncheckedIOException when the file cannot be read
   * @throws IllegalArgumentException when it is not a valid policy
   */
  public static AccessPolicy load(Path file) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the access policy " + file, e);
    }
  }

  /**
   * Parses a policy from its JSON form.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static AccessPolicy parse(String json) {
    JsonNode root;
    try {
      root = McpJson.standard().parse(json);
    } catch (JacksonException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the access policy is not valid JSON: "
          + e.getMessage(), e);
    }
    return fromJson(root, "the access policy");
  }

  /**
   * Reads a policy from its JSON form; {@code where} names it in errors (a file, or the key of
   * a source in the agent's configuration).
   */
  static AccessPolicy fromJson(JsonNode root, String where) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(where + " must be an object with \"principals\"");
    }
    for (String key : root.propertyNames()) {
      if (!key.equals("principals")) {
        throw new IllegalArgumentException(where + ": unknown key \"" + key
            + "\" (expected \"principals\")");
      }
    }
    JsonNode principals = root.get("principals");
    if (principals == null || !principals.isObject()) {
      throw new IllegalArgumentException(
          where + " needs a \"principals\" object mapping principals to tables");
    }
    Builder builder = builder();
    for (Map.Entry<String, JsonNode> entry : principals.properties()) {
      String principal = entry.getKey();
      if (!entry.getValue().isObject()) {
        throw new IllegalArgumentException(where + ": principal " + principal
            + " must be an object with \"tables\"");
      }
      for (String key : entry.getValue().propertyNames()) {
        if (!key.equals("tables")) {
          throw new IllegalArgumentException(where + ": principal " + principal
              + ": unknown key \"" + key + "\" (expected \"tables\")");
        }
      }
      JsonNode tables = entry.getValue().get("tables");
      if (tables == null) {
        throw new IllegalArgumentException("principal " + principal + " has no \"tables\"");
      }
      if (tables.isString() && "*".equals(tables.stringValue())) {
        builder.grantAll(principal);
      } else if (tables.isObject()) {
        builder.principals.putIfAbsent(principal, new LinkedHashMap<>());
        for (Map.Entry<String, JsonNode> table : tables.properties()) {
          JsonNode columns = table.getValue();
          String rows = null;
          if (columns.isObject()) {
            // {"columns": "*" | [...], "rows": "condition"}
            JsonNode grant = columns;
            for (String key : grant.propertyNames()) {
              if (!key.equals("columns") && !key.equals("rows")) {
                throw new IllegalArgumentException("principal " + principal + ", table "
                    + table.getKey() + ": unknown key \"" + key + "\" (expected \"columns\""
                    + " or \"rows\")");
              }
            }
            JsonNode rule = grant.get("rows");
            if (rule != null) {
              if (!rule.isString() || rule.stringValue().isBlank()) {
                throw new IllegalArgumentException("principal " + principal + ", table "
                    + table.getKey() + ": \"rows\" must be an SQL condition");
              }
              rows = rule.stringValue();
            }
            columns = grant.has("columns") ? grant.get("columns")
                : JsonNodeFactory.instance.stringNode("*");
          }
          if (columns.isString() && "*".equals(columns.stringValue())) {
            builder.grant(principal, table.getKey());
          } else if (columns.isArray() && !columns.isEmpty()) {
            Set<String> names = new LinkedHashSet<>();
            for (JsonNode c : columns) {
              if (!c.isString() || c.stringValue().isBlank()) {
                throw new IllegalArgumentException("principal " + principal + ", table "
                    + table.getKey() + ": column names must be non-empty strings");
              }
              names.add(c.stringValue());
            }
            builder.grant(principal, table.getKey(), names.toArray(String[]::new));
          } else {
            throw new IllegalArgumentException("principal " + principal + ", table "
                + table.getKey() + ": columns must be \"*\" or a non-empty list of names");
          }
          if (rows != null) {
            builder.rows(principal, table.getKey(), rows);
          }
        }
      } else {
        throw new IllegalArgumentException("principal " + principal
            + ": \"tables\" must be \"*\" or an object of table names");
      }
    }
    return builder.build();
  }

  /** Returns true when this policy lets everyone see everything. */
  public boolean allowsAll() {
    return byPrincipal == null;
  }

  /**
   * Returns true when the principal with this id has an entry (its own or {@code "*"}): a
   * source whose policy admits a principal is one it may name at all.
   */
  public boolean admits(String principalId) {
    return byPrincipal == null || byPrincipal.containsKey(principalId)
        || byPrincipal.containsKey(ANY_PRINCIPAL);
  }

  /** Returns the entries by principal ({@code "*"} included); empty when everyone sees all. */
  public Map<String, TableAccess> principals() {
    return byPrincipal == null ? Map.of() : byPrincipal;
  }

  /**
   * Returns what the principal with this id may see: its own entry, else the {@code "*"}
   * entry, else nothing.
   */
  public TableAccess accessFor(String principalId) {
    if (byPrincipal == null) {
      return TableAccess.all();
    }
    TableAccess own = byPrincipal.get(principalId);
    if (own != null) {
      return own;
    }
    return byPrincipal.getOrDefault(ANY_PRINCIPAL, TableAccess.none());
  }

  /** Builds an {@link AccessPolicy}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Map<String, Set<String>>> principals = new LinkedHashMap<>();
    private final Set<String> everything = new LinkedHashSet<>();
    private final Map<String, Map<String, String>> rules = new LinkedHashMap<>();

    private Builder() {}

    /** Lets {@code principal} see every table and column. */
    public Builder grantAll(String principal) {
      everything.add(Objects.requireNonNull(principal, "principal"));
      return this;
    }

    /**
     * Lets {@code principal} see {@code table}: only the named columns, or every column when
     * none are named.
     */
    public Builder grant(String principal, String table, String... columns) {
      Objects.requireNonNull(principal, "principal");
      Objects.requireNonNull(table, "table");
      Set<String> set = principals.computeIfAbsent(principal, p -> new LinkedHashMap<>())
          .computeIfAbsent(table, t -> new LinkedHashSet<>());
      if (columns.length == 0) {
        // an empty set means every column; a later column grant must not narrow it
        set.clear();
        set.add("*");
      } else if (!set.contains("*")) {
        set.addAll(java.util.List.of(columns));
      }
      return this;
    }

    /**
     * Shows {@code principal} only the rows of {@code table} (granted separately) that meet
     * {@code condition}: an SQL expression over the table's columns, which may use the
     * principal's claims as {@code ${claims.NAME}} and its id as {@code ${principal.id}}. They
     * become literals; a claim the principal lacks makes the condition false, so it sees no row.
     * Every read of the table, by any tool, resource or query, sees only those rows.
     */
    public Builder rows(String principal, String table, String condition) {
      Objects.requireNonNull(principal, "principal");
      Objects.requireNonNull(table, "table");
      if (condition == null || condition.isBlank()) {
        throw new IllegalArgumentException("a row rule is a non-empty SQL condition");
      }
      rules.computeIfAbsent(principal, p -> new LinkedHashMap<>()).put(table, condition);
      return this;
    }

    /** Returns the policy. */
    public AccessPolicy build() {
      Map<String, TableAccess> result = new LinkedHashMap<>();
      principals.forEach((principal, tables) -> {
        Map<String, Set<String>> grants = new LinkedHashMap<>();
        tables.forEach((table, cols) -> grants.put(table,
            cols.contains("*") ? Set.of() : cols));
        Map<String, String> own = rules.getOrDefault(principal, Map.of());
        for (String table : own.keySet()) {
          if (!tables.containsKey(table)) {
            throw new IllegalArgumentException("principal " + principal + " has a row rule for "
                + table + " but no grant of it");
          }
        }
        result.put(principal, new TableAccess(false, grants, own));
      });
      for (String p : rules.keySet()) {
        if (!principals.containsKey(p)) {
          throw new IllegalArgumentException("principal " + p + " has a row rule but no grant "
              + "of the table (a rule needs the table granted by name)");
        }
      }
      everything.forEach(p -> result.put(p, TableAccess.all()));
      return new AccessPolicy(result);
    }
  }
}
