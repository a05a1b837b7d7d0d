package dev.keel.agent;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One database the agent serves, under a name callers use to pick it ({@code "source": "shop"}
 * in a tool call, {@code db://shop/tables} as a resource). Each source has its own connections,
 * access policy and limits; a principal the policy has no entry for cannot name the source at
 * all.
 *
 * @param name what callers call it: letters, digits, {@code _} and {@code -}
 * @param jdbcUrl the database, or null for the embedded sample
 * @param user the database user, or null
 * @param password the database password, or null
 * @param schema the schema to expose, or null for the connection's current schema
 * @param access who may see what
 * @param limits rows, bytes, time and quotas
 * @param allowWrites whether approved writes are offered on it
 */
public record DatabaseSource(String name, String jdbcUrl, String user, String password,
    String schema, AccessPolicy access, AgentLimits limits, boolean allowWrites) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /** Checks the name and fills defaults. */
  public DatabaseSource {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a source name is 1 to 64 letters, digits, _ or -, "
          + "not \"" + name + "\"");
    }
    if (name.equals("tables") || name.equals("sources")) {
      // db://tables/... already means the caller's first source
      throw new IllegalArgumentException("\"" + name + "\" is reserved and cannot name a source");
    }
    access = access == null ? AccessPolicy.allowAll() : access;
    limits = limits == null ? AgentLimits.defaults() : limits;
  }

  /** A source with everyone seeing everything, default limits and no writes. */
  public static DatabaseSource of(String name, String jdbcUrl, String user, String password) {
    return new DatabaseSource(name, jdbcUrl, user, password, null, null, null, false);
  }

  /** The embedded sample database under {@code name}. */
  public static DatabaseSource sample(String name) {
    return of(name, null, null, null);
  }

  /** Returns a copy exposing {@code value} as its schema. */
  public DatabaseSource withSchema(String value) {
    return new DatabaseSource(name, jdbcUrl, user, password, value, access, limits, allowWrites);
  }

  /** Returns a copy with this access policy. */
  public DatabaseSource withAccess(AccessPolicy value) {
    return new DatabaseSource(name, jdbcUrl, user, password, schema, value, limits, allowWrites);
  }

  /** Returns a copy with these limits. */
  public DatabaseSource withLimits(AgentLimits value) {
    return new DatabaseSource(name, jdbcUrl, user, password, schema, access, value, allowWrites);
  }

  /** Returns a copy that offers approved writes, or not. */
  public DatabaseSource withWrites(boolean value) {
    return new DatabaseSource(name, jdbcUrl, user, password, schema, access, limits, value);
  }

  /** Never shows the password. */
  @Override
  public String toString() {
    return "DatabaseSource[" + name + ", " + (jdbcUrl == null ? "sample"
        : dev.keel.agent.internal.db.Database.redact(jdbcUrl)) + "]";
  }
}
