package dev.keel.mcp.http.console;

import dev.keel.mcp.http.internal.OriginPolicy;
import dev.keel.mcp.server.McpServer;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The operator console: a small web page, served by the server itself, that shows its live
 * sessions, in-flight requests, tasks, subscriptions, errors and traffic charts, cancels
 * runaway requests and tasks, and calls read-only tools as the operator.
 *
 * <pre>{@code
 * McpHttpServer http = McpHttpServer.builder(server)
 *     .console(Console.builder()
 *         .operator("alice", System.getenv("KEEL_CONSOLE_SECRET"))
 *         .panel("Recent statements", agent::recentStatements)
 *         .build())
 *     .start();
 * }</pre>
 *
 * <p>Only the operators named here get in, each with a secret of its own: no MCP client's
 * credential opens the console, and no operator secret opens the MCP endpoint. A browser logs
 * in with a form and then holds an {@code HttpOnly}, {@code SameSite=Strict} session cookie;
 * a script sends {@code Authorization: Bearer <secret>}. Every state-changing request passes
 * the MCP endpoint's Origin and Host checks and, with a cookie, carries the session's CSRF
 * token. The acting operator is always the one the credential names; every action is logged
 * with that name. All assets are served from the classpath; nothing is loaded from elsewhere.
 */
public final class Console {

  private final String path;
  private final Map<String, String> operators;
  private final List<Panel> panels;
  private final Duration sessionTtl;

  private Console(Builder b) {
    this.path = b.path;
    this.operators = Map.copyOf(b.operators);
    this.panels = List.copyOf(b.panels);
    this.sessionTtl = b.sessionTtl;
  }

  /** Returns a builder for a console. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the path the console is served under, such as {@code /console/}. */
  public String path() {
    return path;
  }

  /** Returns the names of the operators who may log in. */
  public Set<String> operatorNames() {
    return operators.keySet();
  }

  /**
   * Returns the console as a servlet for {@code server}, to map at {@link #path()} plus
   * {@code *} in a container of one's own (it needs async support). The Origin and Host rules
   * should be those of the server's MCP endpoint.
   *
   * @param server the server whose operations the console shows and whose engine try-it calls
   * @param allowedOrigins browser origins allowed (empty: loopback origins, or the request's
   *     own host, as for the MCP endpoint)
   * @param allowedHosts {@code Host} values allowed (empty: any, or loopback ones)
   * @param loopbackOnly whether the server is reachable only on loopback
   */
  public HttpServlet servlet(McpServer server, Set<String> allowedOrigins,
      Set<String> allowedHosts, boolean loopbackOnly) {
    Objects.requireNonNull(server, "server");
    return new ConsoleServlet(server, this,
        new OriginPolicy(allowedOrigins, allowedHosts, loopbackOnly));
  }

  Map<String, String> operators() {
    return operators;
  }

  List<Panel> panels() {
    return panels;
  }

  Duration sessionTtl() {
    return sessionTtl;
  }

  /** An extra table: its title and where its rows come from. */
  record Panel(String title, Supplier<List<Map<String, Object>>> rows) {}

  /** Builds a {@link Console}. */
  public static final class Builder {
    private String path = "/console/";
    private final Map<String, String> operators = new LinkedHashMap<>();
    private final List<Panel> panels = new ArrayList<>();
    private Duration sessionTtl = Duration.ofHours(8);

    private Builder() {}

    /** Sets the path the console is served under (default {@code /console/}). */
    public Builder path(String value) {
      if (value == null || !value.startsWith("/") || !value.endsWith("/") || value.equals("/")
          || value.contains("*")) {
        throw new IllegalArgumentException(
            "path must start and end with '/' and name a directory, like /console/: " + value);
      }
      this.path = value;
      return this;
    }

    /**
     * Lets an operator in, with a secret of its own (at least 16 characters; kept only as a
     * salted hash).
     *
     * @throws IllegalArgumentException for a blank or reused name or a short secret
     */
    public Builder operator(String name, String secret) {
      if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9._@-]{1,64}")) {
        throw new IllegalArgumentException(
            "operator name must be 1-64 letters, digits or ._@-: " + name);
      }
      if (secret == null || secret.length() < 16) {
        throw new IllegalArgumentException(
            "the secret of operator " + name + " must have at least 16 characters");
      }
      if (operators.putIfAbsent(name, secret) != null) {
        throw new IllegalArgumentException("operator " + name + " is already configured");
      }
      return this;
    }

    /**
     * Adds a table to the page: {@code rows} is called about once a second, from the
     * console's own thread, and must be fast. A row whose {@code highlight} key is
     * {@code true} is shown highlighted (the key itself is not shown).
     */
    public Builder panel(String title, Supplier<List<Map<String, Object>>> rows) {
      if (title == null || title.isBlank()) {
        throw new IllegalArgumentException("panel title must not be blank");
      }
      panels.add(new Panel(title, Objects.requireNonNull(rows, "rows")));
      return this;
    }

    /** Sets how long a browser login lasts (default 8 hours). */
    public Builder sessionTtl(Duration value) {
      Objects.requireNonNull(value, "sessionTtl");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("sessionTtl must be positive: " + value);
      }
      this.sessionTtl = value;
      return this;
    }

    /**
     * Returns the console.
     *
     * @throws IllegalStateException when no operator was configured (nobody could log in)
     */
    public Console build() {
      if (operators.isEmpty()) {
        throw new IllegalStateException("a console needs at least one operator(name, secret)");
      }
      return new Console(this);
    }
  }
}
