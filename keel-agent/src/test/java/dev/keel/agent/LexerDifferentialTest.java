package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.sample.SampleData;
import dev.keel.agent.internal.sql.CheckedQuery;
import dev.keel.agent.internal.sql.Identifiers;
import dev.keel.agent.internal.sql.QueryCheck;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.agent.internal.sql.StatementTooDeepException;
import dev.keel.agent.internal.sql.TableReferences;
import dev.keel.mcp.core.McpJson;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import org.h2.command.Command;
import org.h2.command.CommandContainer;
import org.h2.command.Prepared;
import org.h2.engine.DbObject;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.api.ErrorCode;
import org.h2.message.DbException;
import org.h2.table.CTE;
import org.h2.table.Table;
import org.h2.table.TableType;
import org.h2.util.HasSQL;
import org.junit.jupiter.api.Test;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;
import tools.jackson.databind.JsonNode;

/**
 * Done item 2 of issue 14: the agent's lexers held against the engines themselves, on
 * generated SQL ({@link SqlTextGenerator}). For every text the statement check accepts:
 *
 * <p><b>PostgreSQL</b> (the real server of {@link TestPostgres}, reached byte for byte through
 * {@link PgWire}, with {@code search_path} and {@code standard_conforming_strings} pinned as the
 * agent pins them). The text goes through exactly what the PostgreSQL JDBC driver does to it
 * (JDBC escape processing, then its placeholder rewriting and statement splitting), which must
 * leave exactly one statement with as many parameters as the check counted. The server must
 * then accept it as one statement when it is parsed as a prepared statement (two would fail
 * with "cannot insert multiple commands into a prepared statement"); syntax and other errors
 * are fine and counted, but the canonical text the check made of it must fail the same way.
 * When it parses, the relations in its parse tree (every range table entry of kind relation,
 * from {@code debug_print_parse}) must be exactly the tables the check saw; the relations
 * EXPLAIN (VERBOSE) names for the text the agent runs (renames applied) must be among them
 * (the planner may prune); and the parse trees of the text and of the canonical text must be
 * identical but for positions: the canonical rewrite changes nothing the server sees.
 *
 * <p><b>H2</b> (an in-memory database with the same tables, {@code DATABASE_TO_LOWER} as the
 * agent's sample). H2's own parser must make one command of the text, not a command list, and
 * the canonical text must prepare to the same plan with the same dependencies. The tables H2
 * reads must be exactly the check's. {@code Command.getDependencies()} must be among them, but
 * it is not the whole answer: it leaves out subqueries in LIMIT and OFFSET and WITH queries the
 * statement never uses, and the optimiser drops what a constant condition rules out. So the
 * exact answer comes from H2's access rights, which it checks for every table as it parses a
 * reference to it, before any optimisation: the text must prepare for a user who may read only
 * the check's tables, and fail for each user who may read all of them but one. A WITH query
 * named like a real table is read as the table by H2 (finding 5), so for those only the text
 * the agent runs (WITH queries renamed) must match.
 *
 * <p>Each run takes {@value #FIXED_TEXTS} texts of a fixed seed and {@code
 * keel.differential.texts} (default {@value #DEFAULT_RANDOM_TEXTS}) of a seed from the clock,
 * or {@code keel.differential.seed}, per engine. A long run:
 * {@code mvn -pl keel-agent test -Dtest=LexerDifferentialTest -Dkeel.differential.texts=200000
 * -Dkeel.differential.seed=1}. Every disagreement is reported with its seed, index and exact
 * text; the counts are printed either way.
 */
class LexerDifferentialTest {

  static final String DB = "keel_differential";
  static final long FIXED_SEED = 20260728L;
  static final int FIXED_TEXTS = 800;
  static final int DEFAULT_RANDOM_TEXTS = 700;
  static final int RANDOM_TEXTS = Integer.getInteger("keel.differential.texts",
      DEFAULT_RANDOM_TEXTS);
  static final long RANDOM_SEED = Long.getLong("keel.differential.seed",
      System.currentTimeMillis());

  /** The agent's view: every table of the schema, none of them narrowed. */
  static final Set<String> VISIBLE = SqlTextGenerator.TABLES.keySet();

  static final Pattern RELATION = Pattern.compile(":rtekind 0 :relid (\\d+)");
  static final Pattern POSITIONS = Pattern.compile(
      ":(location|stmt_location|stmt_len) -?\\d+");

  /** Counts and the disagreements of one engine's run. */
  static final class Tally {
    final String engine;
    final Map<String, Long> counts = new TreeMap<>();
    final Map<String, Long> errors = new TreeMap<>();
    final List<String> disagreements = new ArrayList<>();
    long disagreeing;
    final long started = System.nanoTime();

    Tally(String engine) {
      this.engine = engine;
    }

    void count(String what) {
      counts.merge(what, 1L, Long::sum);
    }

    long get(String what) {
      return counts.getOrDefault(what, 0L);
    }

    void error(String code) {
      errors.merge(code, 1L, Long::sum);
    }

    void disagree(long seed, long index, String text, String what) {
      disagreeing++;
      if (disagreements.size() < 30) {
        disagreements.add(what + "\n    seed " + seed + ", text " + index + ": "
            + javaLiteral(text));
      }
    }

    String summary() {
      long seconds = (System.nanoTime() - started) / 1_000_000_000L;
      return engine + " differential (fixed seed " + FIXED_SEED + " x " + FIXED_TEXTS
          + ", seed " + RANDOM_SEED + " x " + RANDOM_TEXTS + ", " + seconds + " s): "
          + counts + "; errors by code " + errors + "; disagreements " + disagreeing;
    }
  }

  /** Runs {@code each} over the fixed part and the random part. */
  interface PerText {
    void check(long seed, long index, String text) throws Exception;
  }

  static void run(SqlTextGenerator generator, PerText each) throws Exception {
    for (long i = 0; i < FIXED_TEXTS; i++) {
      each.check(FIXED_SEED, i, generator.text(FIXED_SEED, i));
    }
    for (long i = 0; i < RANDOM_TEXTS; i++) {
      each.check(RANDOM_SEED, i, generator.text(RANDOM_SEED, i));
    }
  }

  static CheckedQuery accepted(QueryCheck check, String text, Tally tally) {
    tally.count("texts");
    try {
      CheckedQuery q = check.check(text, VISIBLE, Set.of());
      tally.count("accepted");
      return q;
    } catch (QueryRefusedException | StatementTooDeepException e) {
      tally.count("refused");
      return null;
    }
  }

  static void report(Tally tally) {
    System.out.println(tally.summary());
    assertThat(tally.disagreements).as("texts the check accepted that %s reads differently "
        + "(%d in all):\n%s", tally.engine, tally.disagreeing,
        String.join("\n", tally.disagreements)).isEmpty();
    // Teeth: most texts must pass the check and most of those must reach the engine's
    // analysis, or the comparisons above compared next to nothing.
    assertThat(tally.get("accepted")).as("accepted texts").isGreaterThan(tally.get("texts") / 2);
    assertThat(tally.get("compared")).as("texts whose tables were compared")
        .isGreaterThan(tally.get("accepted") / 3);
  }

  // ------------------------------------------------------------------ PostgreSQL

  /**
   * What the driver sends for a text: its native SQL, the further pieces it splits off (each
   * must be empty to the server), or why it sends something else.
   */
  record Sent(String sql, List<String> rest, String problem) {}

  static Sent driver(String text, int parameters) {
    String replaced;
    try {
      replaced = Parser.replaceProcessing(text, true, true);
    } catch (SQLException e) {
      return new Sent(null, null, "the driver cannot read it: " + e.getMessage());
    }
    if (!replaced.equals(text)) {
      return new Sent(null, null, "the driver rewrites JDBC escapes in it: "
          + javaLiteral(replaced));
    }
    List<NativeQuery> queries;
    try {
      queries = Parser.parseJdbcSql(replaced, true, true, true, false, false);
    } catch (SQLException e) {
      return new Sent(null, null, "the driver cannot read it: " + e.getMessage());
    }
    if (queries.isEmpty()) {
      return new Sent(null, null, "the driver finds no statement in it");
    }
    int binds = 0;
    for (NativeQuery n : queries) {
      binds += n.bindPositions.length;
    }
    if (binds != parameters || queries.get(0).bindPositions.length != parameters) {
      return new Sent(null, null, "the driver sees " + binds + " placeholders, the check "
          + parameters);
    }
    List<String> rest = new ArrayList<>();
    for (NativeQuery n : queries.subList(1, queries.size())) {
      rest.add(n.nativeSql);
    }
    return new Sent(queries.get(0).nativeSql, rest, null);
  }

  @Test
  void postgresqlReadsEveryAcceptedTextAsTheCheckDoes() throws Exception {
    RedTeamDatabase.url(DB);
    TestPostgres pg = TestPostgres.get();
    QueryCheck check = new QueryCheck(Dialect.POSTGRESQL,
        new Identifiers(Identifiers.Fold.LOWER, "\""), "public");
    SqlTextGenerator generator = new SqlTextGenerator(SqlTextGenerator.Engine.POSTGRESQL);
    Tally tally = new Tally("PostgreSQL");
    try (PgWire wire = PgWire.connect(pg.port(), "postgres", DB)) {
      Map<Long, String> relations = new HashMap<>();
      for (List<String> row : wire.query("SELECT c.oid, n.nspname, c.relname FROM pg_class c "
          + "JOIN pg_namespace n ON n.oid = c.relnamespace")) {
        relations.put(Long.parseLong(row.get(0)), row.get(1).equals("public") ? row.get(2)
            : row.get(1) + "." + row.get(2));
      }
      // As the agent pins its sessions; the parse tree comes back as a LOG notice, kept out of
      // the server's log; nothing here may write, and nothing may hang.
      for (String set : List.of("SET search_path = \"public\", pg_catalog, pg_temp",
          "SET standard_conforming_strings = on", "SET default_transaction_read_only = on",
          "SET statement_timeout = '10s'", "SET log_min_messages = fatal",
          "SET debug_pretty_print = off", "SET debug_print_parse = on",
          "SET client_min_messages = log")) {
        wire.query(set);
      }
      run(generator, (seed, index, text) -> {
        CheckedQuery q = accepted(check, text, tally);
        if (q != null) {
          postgres(wire, relations, q, seed, index, text, tally);
        }
      });
    }
    report(tally);
  }

  static void postgres(PgWire wire, Map<Long, String> relations, CheckedQuery q, long seed,
      long index, String text, Tally tally) {
    String applied = q.apply(n -> {
      throw new AssertionError("nothing is narrowed here");
    });
    Sent original = driver(text, q.parameters());
    Sent canonical = driver(q.sql(), q.parameters());
    Sent run = driver(applied, q.parameters());
    for (Sent s : List.of(original, canonical, run)) {
      String which = s == original ? "original: " : s == canonical ? "canonical text: "
          : "renamed text: ";
      if (s.problem() != null) {
        tally.disagree(seed, index, text, which + s.problem());
        return;
      }
      // The driver sends what follows a last ';' as statements of their own ("SELECT 1;
      // -- end" is two); harmless only if the server finds nothing in them.
      for (String piece : s.rest()) {
        PgWire.Reply reply = wire.parse(piece);
        boolean empty = reply.error() == null && reply.notices().stream()
            .noneMatch(r -> "parse tree:".equals(r.message()));
        if (!empty) {
          tally.disagree(seed, index, text, which + "the driver splits off "
              + javaLiteral(piece) + ", which the server reads as a statement "
              + (reply.error() == null ? "" : "(" + reply.error() + ")"));
          return;
        }
        tally.count("empty pieces the driver splits off");
      }
    }
    PgWire.Reply parsed = wire.parse(original.sql());
    PgWire.Reply parsedCanonical = wire.parse(canonical.sql());
    for (PgWire.Reply reply : List.of(parsed, parsedCanonical)) {
      if (reply.error() != null && reply.error().message().contains("multiple commands")) {
        tally.disagree(seed, index, text, "PostgreSQL reads more than one statement in the "
            + (reply == parsed ? "original" : "canonical") + " text: " + reply.error());
        return;
      }
    }
    if (parsed.error() != null) {
      String code = parsed.error().code();
      tally.count(code.equals("42601") ? "syntax errors" : "other errors");
      tally.error(code);
      if (parsedCanonical.error() == null || !parsedCanonical.error().code().equals(code)) {
        tally.disagree(seed, index, text, "the original fails with " + parsed.error()
            + ", the canonical text " + (parsedCanonical.error() == null ? "parses"
                : "fails with " + parsedCanonical.error()));
      }
      return;
    }
    tally.count("parsed");
    if (parsedCanonical.error() != null) {
      tally.disagree(seed, index, text, "the original parses, the canonical text fails with "
          + parsedCanonical.error());
      return;
    }
    String tree = parseTree(parsed);
    String canonicalTree = parseTree(parsedCanonical);
    Set<String> read = relations(tree, relations);
    Set<String> seen = new TreeSet<>(q.tables());
    tally.count("compared");
    if (!read.equals(seen)) {
      tally.disagree(seed, index, text, "PostgreSQL reads " + read + ", the check saw " + seen);
    }
    if (parsed.parameters() != q.parameters()) {
      tally.disagree(seed, index, text, "PostgreSQL sees " + parsed.parameters()
          + " parameters, the check " + q.parameters());
    }
    if (!POSITIONS.matcher(tree).replaceAll("").equals(
        POSITIONS.matcher(canonicalTree).replaceAll(""))) {
      tally.disagree(seed, index, text, "the canonical text parses to another tree: "
          + javaLiteral(q.sql()));
    }
    if (!q.renamed().isEmpty()) {
      tally.count("with renamed WITH queries");
      PgWire.Reply renamed = wire.parse(run.sql());
      if (renamed.error() != null) {
        tally.disagree(seed, index, text, "the renamed text fails with " + renamed.error()
            + ": " + javaLiteral(applied));
        return;
      }
      Set<String> readRenamed = relations(parseTree(renamed), relations);
      if (!readRenamed.equals(seen)) {
        tally.disagree(seed, index, text, "PostgreSQL reads " + readRenamed + " in the renamed "
            + "text, the check saw " + seen);
      }
    }
    PgWire.Reply explained = wire.execute("EXPLAIN (VERBOSE, FORMAT JSON) " + run.sql(),
        q.parameters());
    if (explained.error() != null) {
      tally.count("explain errors");
      tally.error("EXPLAIN " + explained.error().code());
      return;
    }
    tally.count("explained");
    Set<String> planned = new TreeSet<>();
    planRelations(McpJson.standard().parse(explained.rows().get(0).get(0)), planned);
    if (!seen.containsAll(planned)) {
      tally.disagree(seed, index, text, "EXPLAIN names " + planned + ", the check saw " + seen);
    }
  }

  static String parseTree(PgWire.Reply reply) {
    List<String> trees = reply.notices().stream()
        .filter(n -> "parse tree:".equals(n.message())).map(PgWire.Report::detail).toList();
    assertThat(trees).as("one parse tree in %s", reply.notices()).hasSize(1);
    // The server breaks the dump into lines of 78 characters, each break replacing a space
    // (format_node_dump), so the breaks fall elsewhere when a position has another width.
    return trees.get(0).replace('\n', ' ');
  }

  static Set<String> relations(String tree, Map<Long, String> names) {
    Set<String> read = new TreeSet<>();
    Matcher m = RELATION.matcher(tree);
    while (m.find()) {
      long oid = Long.parseLong(m.group(1));
      read.add(names.getOrDefault(oid, "relation " + oid));
    }
    return read;
  }

  static void planRelations(JsonNode node, Set<String> into) {
    if (node.isObject() && node.has("Relation Name")) {
      String schema = node.path("Schema").asString("public");
      String name = node.get("Relation Name").asString();
      into.add(schema.equals("public") ? name : schema + "." + name);
    }
    if (node.isContainer()) {
      for (JsonNode child : node) {
        planRelations(child, into);
      }
    }
  }

  // ------------------------------------------------------------------ H2

  @Test
  void h2ReadsEveryAcceptedTextAsTheCheckDoes() throws Exception {
    Identifiers identifiers = new Identifiers(Identifiers.Fold.LOWER, "\"");
    QueryCheck check = new QueryCheck(Dialect.H2, identifiers, "public");
    SqlTextGenerator generator = new SqlTextGenerator(SqlTextGenerator.Engine.H2);
    Tally tally = new Tally("H2");
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:" + DB
        + ";DATABASE_TO_LOWER=TRUE", "sa", "")) {
      SampleData.load(c);
      try (Statement s = c.createStatement()) {
        s.execute("ALTER TABLE customers ADD COLUMN ssn VARCHAR(20)");
        s.execute("CREATE TABLE secrets (id INTEGER PRIMARY KEY, payload VARCHAR(100) NOT NULL)");
      }
      SessionLocal session = (SessionLocal) ((JdbcConnection) c).getSession();
      try (Readers readers = new Readers(c)) {
        run(generator, (seed, index, text) -> {
          CheckedQuery q = accepted(check, text, tally);
          if (q != null) {
            h2(c, session, readers, identifiers, q, seed, index, text, tally);
          }
        });
      }
    }
    report(tally);
  }

  /**
   * Sessions of H2 users who may read exactly a given set of tables, made on first use. H2
   * checks the SELECT right of every table a statement names while it parses the reference, so
   * whether a text prepares for such a user tells exactly which tables H2 reads.
   */
  static final class Readers implements AutoCloseable {
    private final Connection admin;
    private final Map<Set<String>, SessionLocal> sessions = new HashMap<>();
    private final List<Connection> connections = new ArrayList<>();

    Readers(Connection admin) {
      this.admin = admin;
    }

    SessionLocal of(Set<String> tables) throws SQLException {
      Set<String> key = new TreeSet<>(tables);
      SessionLocal session = sessions.get(key);
      if (session == null) {
        String user = "reader_" + sessions.size();
        try (Statement s = admin.createStatement()) {
          s.execute("CREATE USER " + user + " PASSWORD 'r'");
          if (!key.isEmpty()) {
            s.execute("GRANT SELECT ON " + String.join(", ", key) + " TO " + user);
          }
        }
        Connection c = DriverManager.getConnection(admin.getMetaData().getURL(), user, "r");
        connections.add(c);
        session = (SessionLocal) ((JdbcConnection) c).getSession();
        sessions.put(key, session);
      }
      return session;
    }

    @Override
    public void close() throws SQLException {
      for (Connection c : connections) {
        c.close();
      }
    }
  }

  /**
   * Compares the tables H2 reads in {@code sql} with {@code seen}; returns the disagreement or
   * null.
   */
  static String compareReads(Readers readers, String sql, Set<String> seen) throws SQLException {
    H2Outcome allowed = prepare(readers.of(seen), sql);
    if (allowed.command() == null) {
      return allowed.error() == ErrorCode.NOT_ENOUGH_RIGHTS_FOR_1
          ? "H2 reads a table the check did not see (" + allowed.message().split("\n")[0] + ")"
          : "it fails only for a reader of the check's tables: " + allowed.message();
    }
    allowed.command().close();
    for (String table : seen) {
      Set<String> fewer = new TreeSet<>(seen);
      fewer.remove(table);
      H2Outcome without = prepare(readers.of(fewer), sql);
      if (without.command() != null) {
        without.command().close();
        return "the check saw " + table + ", H2 does not read it";
      }
      if (without.error() != ErrorCode.NOT_ENOUGH_RIGHTS_FOR_1) {
        return "without " + table + " it fails otherwise: " + without.message();
      }
    }
    return null;
  }

  /** What H2 made of a text: a command, or the error code it refused it with. */
  record H2Outcome(Command command, int error, String message) {}

  static H2Outcome prepare(SessionLocal session, String sql) {
    try {
      return new H2Outcome(session.prepareLocal(sql), 0, null);
    } catch (DbException e) {
      return new H2Outcome(null, e.getErrorCode(), e.getMessage());
    }
  }

  static void h2(Connection c, SessionLocal session, Readers readers, Identifiers identifiers,
      CheckedQuery q, long seed, long index, String text, Tally tally) throws Exception {
    String applied = q.apply(n -> {
      throw new AssertionError("nothing is narrowed here");
    });
    // What the agent sends (the canonical text, renamed) must reach H2's parser unchanged by
    // the driver's JDBC escape processing. The original text is never sent; that the driver's
    // escape scanner reads some of them differently from H2's tokenizer is only counted.
    for (String sent : List.of(q.sql(), applied)) {
      String nativeSql;
      try {
        nativeSql = c.nativeSQL(sent);
      } catch (SQLException e) {
        nativeSql = "(refused: " + e.getMessage() + ")";
      }
      if (!nativeSql.equals(sent)) {
        tally.disagree(seed, index, text, "H2's driver rewrites " + javaLiteral(sent) + " to "
            + javaLiteral(nativeSql));
        return;
      }
    }
    try {
      if (!c.nativeSQL(text).equals(text)) {
        tally.count("original rewritten by the driver's escape processing");
      }
    } catch (SQLException e) {
      tally.count("original refused by the driver's escape processing");
    }
    H2Outcome original = prepare(session, text);
    H2Outcome canonical = prepare(session, q.sql());
    H2Outcome run = prepare(session, applied);
    for (H2Outcome p : List.of(original, canonical, run)) {
      if (p.command() != null && !(p.command() instanceof CommandContainer)) {
        tally.disagree(seed, index, text, "H2 reads more than one statement in the "
            + (p == original ? "original" : p == canonical ? "canonical" : "renamed") + " text ("
            + p.command().getClass().getSimpleName() + ")");
        return;
      }
    }
    if (original.command() == null) {
      tally.count(original.error() / 1000 == 42 && original.error() < 42100 ? "syntax errors"
          : "other errors");
      tally.error(String.valueOf(original.error()));
      if (canonical.command() != null || canonical.error() != original.error()) {
        tally.disagree(seed, index, text, "the original fails with " + original.message()
            + ", the canonical text " + (canonical.command() != null ? "prepares"
                : "fails with " + canonical.message()));
      }
      return;
    }
    tally.count("parsed");
    if (canonical.command() == null) {
      tally.disagree(seed, index, text, "the original prepares, the canonical text fails with "
          + canonical.message());
      return;
    }
    Set<String> shadowing = new TreeSet<>();
    if (!q.renamed().isEmpty()) {
      shadowing.addAll(TableReferences.of(CCJSqlParserUtil.parse(q.sql()), identifiers)
          .withQueryNames());
      shadowing.retainAll(VISIBLE);
    }
    if (run.command() == null) {
      // With a WITH query named like a table, H2 read the table in the original; renamed, it
      // reads the WITH query as PostgreSQL and the check do, which may well fail.
      if (shadowing.isEmpty()) {
        tally.disagree(seed, index, text, "the renamed text fails with " + run.message() + ": "
            + javaLiteral(applied));
      } else {
        tally.count("WITH names shadowing a table");
      }
      return;
    }
    tally.count("compared");
    Set<String> seen = new TreeSet<>(q.tables());
    if (!shadowing.isEmpty()) {
      // H2 resolves these names to the tables, not to the WITH queries (finding 5); the
      // rename is what makes the text the agent runs read what the check saw
      tally.count("WITH names shadowing a table");
    } else {
      String reading = compareReads(readers, text, seen);
      if (reading != null) {
        tally.disagree(seed, index, text, reading);
      }
    }
    String renamed = compareReads(readers, applied, seen);
    if (renamed != null) {
      tally.disagree(seed, index, text, "in the renamed text: " + renamed + ": "
          + javaLiteral(applied));
    }
    Set<String> dependencies = tables(run.command());
    if (!seen.containsAll(dependencies)) {
      tally.disagree(seed, index, text, "H2 depends on " + dependencies + ", the check saw "
          + seen);
    } else if (!dependencies.equals(seen)) {
      // what H2Guard, the agent's second layer on H2, sees of the statement
      tally.count("dependencies short of the tables read");
    }
    if (!tables(canonical.command()).equals(tables(original.command()))
        || !plan(canonical.command()).equals(plan(original.command()))) {
      tally.disagree(seed, index, text, "the canonical text prepares to another command: "
          + plan(canonical.command()) + " against " + plan(original.command()));
    }
    if (original.command().getParameters().size() != q.parameters()) {
      tally.disagree(seed, index, text, "H2 sees " + original.command().getParameters().size()
          + " parameters, the check " + q.parameters());
    }
    for (H2Outcome o : List.of(original, canonical, run)) {
      o.command().close();
    }
  }

  static Set<String> tables(Command command) {
    Set<String> read = new TreeSet<>();
    for (DbObject d : command.getDependencies()) {
      if (d instanceof Table t && !(t instanceof CTE) && (t.getTableType() == TableType.TABLE
          || t.getTableType() == TableType.VIEW)) {
        String schema = t.getSchema().getName();
        read.add(schema.equals("public") ? t.getName() : schema + "." + t.getName());
      }
    }
    return read;
  }

  private static final Field PREPARED = preparedField();

  private static Field preparedField() {
    try {
      Field f = CommandContainer.class.getDeclaredField("prepared");
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("H2's CommandContainer changed", e);
    }
  }

  /**
   * The command's plan. H2 names a derived table that has no alias from a counter of the
   * session ({@code "_3"}, then {@code "_4"} for the next statement prepared), so those names
   * are left out of the comparison.
   */
  static String plan(Command command) throws IllegalAccessException {
    return ((Prepared) PREPARED.get(command)).getPlanSQL(HasSQL.DEFAULT_SQL_FLAGS)
        .replaceAll("\"_\\d+\"", "\"_\"");
  }

  /** A text as a Java string literal, every character outside printable ASCII escaped. */
  static String javaLiteral(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20 || ch > 0x7e) {
            b.append(String.format("\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
