package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.internal.db.Dialect;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The MySQL lexer held against MariaDB itself: generated statements (comments of every kind,
 * both quotes for names, strings holding comment and quote openers, {@code --} with and without
 * a space, then mutated with a stray quote, comment opener, backslash or {@code ;}) run on the
 * server twice, as written and as the check rewrote them, in the session mode the agent pins.
 * Whenever the check accepts a statement, the server must give the same answer for both texts
 * (the same rows, or an error for both): a difference means the lexer read the text otherwise
 * than the server.
 */
class MariaDbLexerDifferentialTest {

  static final String[] ITEMS = {"1", "'a''b'", "'#x'", "'-- y'", "'/* z */'", "`id`",
      "\"id\"", "id", "status", "\"status\"", "'\"'", "'`'", "1 - -1", "2*3", "'x' = 'x'",
      "concat('a', \"status\")", "'a' || 'b'", "CASE WHEN id = 1 THEN 'one' END",
      "`total` + 1", "'\\\\'", "x'41'", "1 /*! + 1 */", "`a``b`.`id`", "o.id", "'it''s'",
      "\"o\".\"status\"", "'\\''", "-1", "1.5e1", ".5", "'#'", "'--'", "'a' 'b'"};
  static final String[] GAPS = {" ", "\n", " /* c */ ", " # c\n", " -- c\n", "\t", " --\n",
      " -- x\r\n", "/**/", " #\r\n", "  ", " -- x\r", " #x\r", "--\u000b"};
  static final String[] STRAYS = {"'", "\"", "`", "#", "-", "/", "*", "\\", ";", "\n", "\r",
      "!", "-- ", "/*", "*/", "#", "--"};

  static Connection admin() throws Exception {
    Class<?> support = Class.forName("dev.keel.agent.TestMariaDb");
    Method get = support.getDeclaredMethod("get");
    get.setAccessible(true);
    Object db = get.invoke(null);
    Class<?> driver = Class.forName("dev.keel.agent.TestMariaDb$Driver");
    Method database = support.getDeclaredMethod("database", String.class, driver);
    database.setAccessible(true);
    database.invoke(db, "keel_diff", driver.getEnumConstants()[0]);
    Method admin = support.getDeclaredMethod("admin", String.class);
    admin.setAccessible(true);
    Connection c = (Connection) admin.invoke(db, "keel_diff");
    Field mode = Class.forName("dev.keel.agent.internal.db.MySqlPins")
        .getDeclaredField("SQL_MODE");
    mode.setAccessible(true);
    try (Statement s = c.createStatement()) {
      s.execute("SET SESSION sql_mode = '" + mode.get(null) + "'");
    }
    return c;
  }

  static String generate(Random r) {
    StringBuilder b = new StringBuilder("SELECT");
    int items = 1 + r.nextInt(4);
    for (int i = 0; i < items; i++) {
      b.append(i == 0 ? GAPS[r.nextInt(GAPS.length)] : "," + GAPS[r.nextInt(GAPS.length)]);
      b.append(ITEMS[r.nextInt(ITEMS.length)]);
    }
    b.append(GAPS[r.nextInt(GAPS.length)]).append("FROM orders o WHERE")
        .append(GAPS[r.nextInt(GAPS.length)]).append("o.id = 1");
    if (r.nextInt(3) == 0) {
      int at = r.nextInt(b.length() + 1);
      b.insert(at, STRAYS[r.nextInt(STRAYS.length)]);
    }
    if (r.nextInt(4) == 0) {
      b.append(GAPS[r.nextInt(GAPS.length)]).append("; DELETE FROM orders");
    }
    return b.toString();
  }

  /** The answer of the server: its rows as text, or "error". */
  static String run(Connection c, String sql) {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      StringBuilder out = new StringBuilder();
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= columns; i++) {
          out.append(rs.getString(i)).append('|');
        }
        out.append('\n');
      }
      return out.toString();
    } catch (SQLException e) {
      return "error";
    } finally {
      try {
        c.rollback();
      } catch (SQLException e) {
        // auto-commit
      }
    }
  }

  @Test
  void acceptedStatementsMeanTheSameToTheServerAsTheirRewriting() throws Exception {
    QueryCheck check = new QueryCheck(Dialect.MYSQL,
        new Identifiers(Identifiers.Fold.NONE, "`"), "keel_diff");
    Random random = new Random(20261201);
    int accepted = 0;
    int refused = 0;
    List<String> disagreements = new ArrayList<>();
    try (Connection c = admin()) {
      for (int n = 0; n < 1500; n++) {
        String sql = generate(random);
        CheckedQuery q;
        try {
          q = check.check(sql, Set.of("orders"), Set.of());
        } catch (QueryRefusedException e) {
          refused++;
          continue;
        }
        accepted++;
        String original = run(c, sql);
        String rewritten = run(c, q.sql());
        if (!original.equals(rewritten)) {
          disagreements.add(sql.replace("\n", "\\n").replace("\r", "\\r") + "  =>  "
              + original.strip() + "  vs  " + rewritten.strip());
        }
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT count(*) FROM orders")) {
        rs.next();
        assertThat(rs.getLong(1)).as("a DELETE got through").isEqualTo(2500);
      }
    }
    System.err.printf("MariaDB differential: %d accepted, %d refused, %d disagreements%n",
        accepted, refused, disagreements.size());
    assertThat(disagreements).isEmpty();
    assertThat(accepted).isGreaterThan(300);
  }
}
