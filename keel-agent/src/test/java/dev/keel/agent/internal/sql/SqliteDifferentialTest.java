package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.sample.SampleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQLite lexer held to SQLite itself: queries over the sample tables, mutated with comment
 * and quote openers, parameter forms, {@code ;} and a second statement; for every text the
 * check accepts, SQLite must compile the caller's text and the canonical text to the same
 * program ({@code EXPLAIN}, which runs nothing), and the driver must count the check's number
 * of parameters. A comment, string or name read differently would compile differently.
 *
 * <p>One divergence is by design: a double-quoted name that matches no column is a string to
 * SQLite in the caller's text and an unknown column in the canonical one (written in
 * backticks); those texts must fail in the canonical form, never compile to something else.
 */
class SqliteDifferentialTest {

  static final long SEED = Long.getLong("keel.differential.seed", 20261201L);
  static final int TEXTS = Integer.getInteger("keel.differential.texts", 3000);

  static final List<String> BASES = List.of(
      "SELECT id, name FROM regions WHERE id = ?",
      "SELECT c.name, count(*) AS n FROM customers c JOIN orders o ON o.customer_id = c.id "
          + "GROUP BY c.name ORDER BY n DESC LIMIT 5",
      "SELECT \"name\", [id], `region_id` FROM employees WHERE title <> 'it''s' -- note\n",
      "SELECT status FROM orders WHERE total > 100 /* big */ AND status == 'delivered'",
      "SELECT 'a;b' || name, 0x1F, 1.5e3 FROM products WHERE category IN (?, ?)",
      "SELECT * FROM order_items WHERE quantity BETWEEN ? AND 3 UNION ALL "
          + "SELECT * FROM order_items WHERE line_no = 1",
      "SELECT (SELECT max(total) FROM orders), replace(name, 'a', 'b') FROM regions",
      "VALUES (1, 'x'), (2, 'y')");

  static final List<String> INSERTS = List.of("/*", "*/", "--", "\n", "'", "\"", "`", "[",
      "]", ";", "; DELETE FROM orders", "?", "?1", "$a", ":a", "@a", "#", "x'", "0x", "==",
      "->", "$", "\u00a0", "\u000b", "\f", "'/*'", "\"/*\"", "[/*]", "`--`", "/**/", "-- x\n",
      "'''", "\"\"", "e", ".", "_", "1");

  static Path dir;
  static Connection sqlite;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("keel-sqlite-differential-");
    Path file = dir.resolve("shop.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      c.setAutoCommit(false);
      SampleData.load(c);
    }
    org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
    config.setReadOnly(true);
    sqlite = config.createConnection("jdbc:sqlite:" + file);
  }

  @AfterAll
  static void stop() throws Exception {
    if (sqlite != null) {
      sqlite.close();
    }
  }

  /** The program SQLite compiles a text to, or null when it does not compile. */
  static List<String> program(String sql) {
    List<String> ops = new ArrayList<>();
    try (PreparedStatement p = sqlite.prepareStatement("EXPLAIN " + sql);
        ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        String p4 = rs.getString("p4");
        ops.add(rs.getString("opcode") + " " + rs.getInt("p1") + " " + rs.getLong("p2") + " "
            + rs.getInt("p3") + " " + (p4 != null && p4.startsWith("vtab:") ? "vtab" : p4)
            + " " + rs.getInt("p5"));
      }
      return ops;
    } catch (SQLException e) {
      lastError = e.getMessage();
      return null;
    }
  }

  static String lastError;

  static String firstDifference(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      if (!a.get(i).equals(b.get(i))) {
        return a.get(i) + " / " + b.get(i);
      }
    }
    return "lengths " + a.size() + " / " + b.size();
  }

  static int parameters(String sql) throws SQLException {
    try (PreparedStatement p = sqlite.prepareStatement(sql)) {
      return p.getParameterMetaData().getParameterCount();
    }
  }

  @Test
  void sqliteCompilesTheCallersTextAndTheCanonicalTextAlike() throws Exception {
    QueryCheck check = new QueryCheck(Dialect.SQLITE,
        new Identifiers(Identifiers.Fold.NONE, "\""), "main");
    Set<String> tables = Set.copyOf(SampleData.TABLES);
    Random random = new Random(SEED);
    int accepted = 0;
    int compared = 0;
    int dqs = 0;
    List<String> disagreements = new ArrayList<>();
    for (int n = 0; n < TEXTS; n++) {
      StringBuilder text = new StringBuilder(BASES.get(random.nextInt(BASES.size())));
      int mutations = n < BASES.size() ? 0 : 1 + random.nextInt(3);
      for (int m = 0; m < mutations; m++) {
        text.insert(random.nextInt(text.length() + 1),
            INSERTS.get(random.nextInt(INSERTS.size())));
      }
      String sql = text.toString();
      CheckedQuery checked;
      try {
        checked = check.check(sql, tables, Set.of());
      } catch (QueryRefusedException | StatementTooDeepException e) {
        continue;
      }
      accepted++;
      List<String> canonical = program(checked.sql());
      List<String> original = program(sql);
      if (original == null && canonical == null) {
        continue;
      }
      if (canonical == null && sql.contains("\"")) {
        dqs++;
        continue;
      }
      compared++;
      if (original == null || !original.equals(canonical)
          || parameters(checked.sql()) != checked.parameters()
          || parameters(sql) != checked.parameters()) {
        String detail = original == null ? "the caller's text does not compile: " + lastError
            : !original.equals(canonical) ? "programs differ: " + firstDifference(original,
                canonical) : "parameters: driver " + parameters(sql) + "/" + parameters(
                    checked.sql()) + ", check " + checked.parameters();
        disagreements.add("seed " + SEED + " #" + n + ": " + sql.replace("\n", "\\n")
            + "\n  canonical: " + checked.sql() + "\n  " + detail);
      }
    }
    System.out.printf("sqlite differential: seed %d, %d texts, %d accepted, %d compared, "
        + "%d double-quoted names that match nothing (refused in the canonical form)%n", SEED,
        TEXTS, accepted, compared, dqs);
    assertThat(disagreements).isEmpty();
    assertThat(compared).isGreaterThan(BASES.size() - 1);
  }
}
