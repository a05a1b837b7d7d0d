package dev.keel.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * SQL texts for the differential tests: queries over the sample shop (plus the red team's
 * {@code secrets} and {@code customers.ssn}) written with every lexical form an engine knows,
 * and spliced with the forms that broke the agent before (issue 14).
 *
 * <p>Each text is built in two steps. First a query from a small typed grammar (joins,
 * subqueries in every clause, WITH queries, some named like the tables they hide, set
 * operations, {@code VALUES}, {@code TABLE x}, parameters), so that most texts are valid and
 * reach the engine's analysis, where the tables it reads can be compared. Then it is written
 * out piece by piece, each piece in a form chosen at random from those of the engine: names
 * plain, in other cases, quoted or as {@code U&"..."} with or without {@code UESCAPE}; strings
 * standard, {@code E'...'} with every escape, {@code U&'...'}, dollar-quoted with and without
 * tags, continued across lines and comments, {@code N'...'}; and between pieces whitespace of
 * every kind, {@code --}, {@code //} and nested block comments, or nothing, so that operators
 * run into comments ({@code //* x *}{@code /}, {@code +--}). About one text in ten uses the
 * other engine's forms, and about a third are then mutated: a fragment (comment and quote
 * openers, dollar tags, {@code ;} with a second statement, operators, NBSP, BOM, zero-width,
 * fullwidth, combining and supplementary characters, control characters, cuts of the red-team
 * texts) spliced in at a random position, a range deleted or duplicated.
 *
 * <p>A text is a function of (seed, index) alone, so a failure is reproduced from the seed and
 * the index printed with it.
 */
final class SqlTextGenerator {

  /** The engine whose lexical forms a text mostly uses. */
  enum Engine { POSTGRESQL, H2 }

  enum Type { INT, NUM, TEXT, DATE, TS, BOOL }

  record Column(String name, Type type) {}

  /** The red team's tables and columns: the sample shop, {@code secrets}, {@code ssn}. */
  static final Map<String, List<Column>> TABLES = tables();

  /**
   * The red-team texts of issue 14, as reported, and the classic smuggling forms. The ones that
   * only exhaust memory or time ({@code REPEAT('x', 200000000)}, {@code HASH(..., 400000000)})
   * are left out: they test the bounds, not the reading, and an engine folds them while
   * preparing.
   */
  static final List<String> ATTACKS = List.of(
      "SELECT 4 //* x */ 2 AS a, (SELECT string_agg(payload, ',') FROM secrets) AS p, "
          + "(SELECT string_agg(ssn, ',') FROM (SELECT ssn FROM customers ORDER BY id LIMIT 2) s)"
          + " AS ssn\n",
      "SELECT 4 //* x */ 2 AS a, set_config('application_name','pwned',false)\n",
      "SELECT $a$ || ' $a$ , (SELECT string_agg(payload, ',') FROM secrets) AS p -- '",
      "SELECT 4 //* x */ 2; COMMIT; UPDATE secrets SET payload = 'overwritten-by-bob' WHERE "
          + "id = 1; DELETE FROM orders WHERE id > 995",
      "SELECT 4 //* x */ 2; COMMIT; SELECT nextval('ticket_seq')",
      "SELECT 4 //* x */ 2; COMMIT; CREATE TEMP TABLE bob_was_here AS SELECT 1 AS x",
      "SELECT 4 //* x */ 2; COMMIT; CREATE TEMP TABLE IF NOT EXISTS orders AS SELECT 1 AS id, "
          + "'spoofed-by-bob'::text AS status",
      "WITH employees AS (SELECT 1 AS x) SELECT * FROM employees LIMIT 2",
      "WITH customers AS (SELECT 1 AS x) SELECT id, email FROM customers",
      "SELECT * FROM orders",
      "SELECT 'secrets'::\"regclass\"::oid",
      "SELECT status, count(*) FROM orders GROUP BY status",
      "SELECT " + "NOT ".repeat(300) + "true",
      "SELECT E'\\'' ; DELETE FROM orders; --'",
      "SELECT $$;DELETE FROM orders;$$",
      "SELECT * FROM orders -- harmless?\n; DELETE FROM orders",
      "SELECT * FROM orders /* ; */ ; DROP TABLE orders",
      "SELECT 'it''s;' AS x; DELETE FROM orders",
      "SELECT $q$ $$ ' $q$, (SELECT payload FROM secrets LIMIT 1) -- ' $$",
      "SELECT U&'\\0027' UESCAPE '!' , (SELECT payload FROM secrets) -- '",
      "SELECT 1 /* /* */ ; DELETE FROM orders; /* */ */",
      "SELECT 'a'\n'b' ; UPDATE orders SET status = 'x'",
      "SELECT 'a' -- \n'b'; SELECT pg_advisory_lock(1)");

  /** Statements smuggled after a {@code ;}: each would change something if it ran. */
  static final List<String> SMUGGLED = List.of(
      "COMMIT",
      "UPDATE secrets SET payload = 'overwritten' WHERE id = 1",
      "DELETE FROM orders WHERE id > 995",
      "INSERT INTO regions VALUES (99, 'Atlantis')",
      "CREATE TEMP TABLE smuggled AS SELECT 1 AS x",
      "CREATE TEMP TABLE IF NOT EXISTS orders AS SELECT 1 AS id, 'spoofed'::text AS status",
      "CREATE TABLE smuggled_table (x INTEGER)",
      "SELECT nextval('ticket_seq')",
      "SELECT setval('ticket_seq', 99)",
      "SET search_path = app",
      "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
      "SET default_transaction_read_only = off",
      "SET application_name = 'pwned'",
      "SELECT set_config('application_name', 'pwned', false)",
      "RESET ALL",
      "DISCARD ALL",
      "LISTEN smuggled",
      "NOTIFY smuggled, 'x'",
      "SELECT pg_advisory_lock(42)",
      "PREPARE smuggled AS SELECT 1",
      "DECLARE smuggled CURSOR WITH HOLD FOR SELECT 1",
      "BEGIN",
      "ROLLBACK",
      "TRUNCATE secrets",
      "DROP TABLE secrets",
      "ALTER TABLE orders ADD COLUMN smuggled INTEGER",
      "COPY (SELECT 1) TO STDOUT",
      "LOCK TABLE orders IN ACCESS EXCLUSIVE MODE",
      "DO $$BEGIN UPDATE orders SET status = 'x'; END$$",
      "SET ROLE postgres",
      "SELECT payload FROM secrets");

  private static final String[] STRINGS = {"DE", "delivered", "A%", "%a%", "it's",
      "O'Brien; DROP TABLE x", "a\\b", "\\", "\\'", "--", "/*", "*/", "/* x */", "$$", "$a$",
      "$", ";", "; DELETE FROM orders", "?", "a ? b", "\"", "\"\"", "\u00e9",
      "\u65e5\u672c\u8a9e", "\ud83d\ude00", "\u00a0", "\ufeff", "\u200b", "\t", "\n", "\r\n",
      "e'", "U&'", "{fn now()}", "{d '2020-01-01'}", "x'1F'", "", " ", "UESCAPE",
      "SELECT payload FROM secrets", "e\u0301", "\uff53\uff45\uff4c\uff45\uff43\uff54",
      "\u0007", "\u001b", "'; COMMIT; --", "$q$", "\\x41", "\\u0041"};

  private static final String[] PLAIN_ALIASES = {"t", "x", "q", "s", "sub", "src", "v", "tt",
      "alias_", "a_b", "z9"};

  private static final String[] ODD_ALIASES = {"odd name", "a\"b", "\u00f1and\u00fa",
      "\ud835\udd18nicode", "select", "from", "--", "/*", ";", "?", "$a$", "'", "x.y", "Mixed",
      "UPPER", "tab\tname", "\u00a0nb",
      "a_very_long_alias_name_that_runs_past_the_sixty_three_bytes_postgres_keeps", "\u65e5\u672c"};

  private static final String[] COMMENT_BODIES = {"", " x ", "*", " ' ", " \" ", " $$ ",
      " $a$ ", " ; DELETE FROM orders; ", " -- ", " // ", " ? ", " \u00e9 \ud83d\ude00 ", "\n",
      " * / ", "**", " UNION SELECT payload FROM secrets ", " E'\\'' ", "\u00a0", " {fn x} "};

  private static final String[] FRAGMENTS = {"--", "/*", "*/", "//", "'", "''", "\"", "$$",
      "$a$", "$1", "?", "??", ";", "\\", "E'", "e'\\''", "U&", "UESCAPE '!'", "::", "||", "+-",
      "-+", "*/*", "/**/", "@", "#", "~", "`", "{", "}", "[", "]", ":=", "=>", "..", "$",
      "\u00a0", "\ufeff", "\u200b", "\u200d", "\u3000", "\u2028",
      "\uff53\uff45\uff4c\uff45\uff43\uff54", "e\u0301",
      "\ud835\udd18", "\ud83d\ude00", "\u0001", "\u000b", "\u001f", "\u007f", "\r", "\f",
      "\u0085", "\u202e", "\ud800", "N'", "B'", "X'", "x", "1", " ", "\n", "(", ")", ",", ".",
      "%", "^", "&", "|", "!", "<", ">", "="};

  private static final String[][] PAIRS = {{"/*", "*/"}, {"--", "\n"}, {"'", "'"}, {"\"", "\""},
      {"$$", "$$"}, {"$a$", "$a$"}, {"$a$", "$b$"}, {"E'", "'"}, {"U&'", "'"}, {"U&\"", "\""},
      {"(", ")"}, {"/*", "/*"}, {"//", "\n"}, {"N'", "'"}, {"'", "\n'"}, {"$_$", "$_$"},
      {"/* /*", "*/"}, {"e'\\", "'"}};

  private final Engine engine;
  private final double mutations;

  SqlTextGenerator(Engine engine) {
    this(engine, 0.3);
  }

  /** A generator whose texts are mutated with probability {@code mutations}. */
  SqlTextGenerator(Engine engine, double mutations) {
    this.engine = engine;
    this.mutations = mutations;
  }

  private static Map<String, List<Column>> tables() {
    Map<String, List<Column>> t = new LinkedHashMap<>();
    t.put("regions", List.of(c("id", Type.INT), c("name", Type.TEXT)));
    t.put("customers", List.of(c("id", Type.INT), c("name", Type.TEXT), c("email", Type.TEXT),
        c("country", Type.TEXT), c("region_id", Type.INT), c("segment", Type.TEXT),
        c("signup_date", Type.DATE), c("ssn", Type.TEXT)));
    t.put("products", List.of(c("id", Type.INT), c("sku", Type.TEXT), c("name", Type.TEXT),
        c("category", Type.TEXT), c("unit_price", Type.NUM), c("in_stock", Type.BOOL)));
    t.put("orders", List.of(c("id", Type.INT), c("customer_id", Type.INT),
        c("ordered_at", Type.TS), c("status", Type.TEXT), c("total", Type.NUM)));
    t.put("order_items", List.of(c("order_id", Type.INT), c("line_no", Type.INT),
        c("product_id", Type.INT), c("quantity", Type.INT), c("unit_price", Type.NUM)));
    t.put("employees", List.of(c("id", Type.INT), c("name", Type.TEXT), c("title", Type.TEXT),
        c("region_id", Type.INT), c("hired_on", Type.DATE), c("salary", Type.NUM)));
    t.put("audit_log", List.of(c("id", Type.INT), c("employee_id", Type.INT),
        c("action", Type.TEXT), c("detail", Type.TEXT), c("at", Type.TS)));
    t.put("secrets", List.of(c("id", Type.INT), c("payload", Type.TEXT)));
    return t;
  }

  private static Column c(String name, Type type) {
    return new Column(name, type);
  }

  /** Returns text number {@code index} of the stream {@code seed}. */
  String text(long seed, long index) {
    long mixed = seed * 0x9E3779B97F4A7C15L + index * 0xBF58476D1CE4E5B9L;
    return new Run(new Random(mixed ^ (mixed >>> 31))).text();
  }

  /** A piece of a query before it is written out. */
  private sealed interface Piece permits Kw, Name, Str, Num, Op, Punct, Raw {}

  /** A keyword or function name: written in any case. */
  private record Kw(String word) implements Piece {}

  /** A name as the database stores it: written in any spelling that means it. */
  private record Name(String name) implements Piece {}

  /** A character string: written in any of the engine's string forms. */
  private record Str(String value) implements Piece {}

  private record Num(String text) implements Piece {}

  private record Op(String text) implements Piece {}

  private record Punct(String text) implements Piece {}

  /** Written exactly as given. */
  private record Raw(String text) implements Piece {}

  /** A FROM item: the name that qualifies its columns, and the columns. */
  private record Source(String qualifier, List<Column> columns) {}

  /** The FROM items of one query level, the WITH queries in scope, and the outer levels. */
  private static final class Scope {
    final Scope outer;
    final List<Source> sources = new ArrayList<>();
    final Map<String, List<Column>> withQueries = new LinkedHashMap<>();

    Scope(Scope outer) {
      this.outer = outer;
    }

    List<Column> withQuery(String name) {
      for (Scope s = this; s != null; s = s.outer) {
        if (s.withQueries.containsKey(name)) {
          return s.withQueries.get(name);
        }
      }
      return null;
    }

    Set<String> withNames() {
      Set<String> names = new HashSet<>();
      for (Scope s = this; s != null; s = s.outer) {
        names.addAll(s.withQueries.keySet());
      }
      return names;
    }

    boolean used(String qualifier) {
      return sources.stream().anyMatch(s -> s.qualifier.equals(qualifier));
    }
  }

  /** The pieces of a query being built. */
  private static final class Out {
    final List<Piece> pieces = new ArrayList<>();

    Out kw(String... words) {
      for (String w : words) {
        pieces.add(new Kw(w));
      }
      return this;
    }

    Out name(String n) {
      pieces.add(new Name(n));
      return this;
    }

    Out p(String text) {
      pieces.add(new Punct(text));
      return this;
    }

    Out op(String text) {
      pieces.add(new Op(text));
      return this;
    }

    Out num(String text) {
      pieces.add(new Num(text));
      return this;
    }

    Out str(String value) {
      pieces.add(new Str(value));
      return this;
    }

    Out raw(String text) {
      pieces.add(new Raw(text));
      return this;
    }

    Out add(Out other) {
      pieces.addAll(other.pieces);
      return this;
    }
  }

  /** One text. */
  private final class Run {
    private final Random r;
    private Engine flavor;
    private int counter;

    Run(Random r) {
      this.r = r;
    }

    private boolean chance(double p) {
      return r.nextDouble() < p;
    }

    @SafeVarargs
    private <T> T pick(T... options) {
      return options[r.nextInt(options.length)];
    }

    private <T> T pick(List<T> options) {
      return options.get(r.nextInt(options.size()));
    }

    String text() {
      flavor = chance(0.9) ? engine : engine == Engine.H2 ? Engine.POSTGRESQL : Engine.H2;
      String text;
      if (chance(mutations * 0.12)) {
        text = pick(ATTACKS);
        if (chance(0.5)) {
          text = mutate(text);
        }
      } else {
        Out q = new Out();
        statement(q);
        text = render(q.pieces);
        if (chance(mutations)) {
          text = mutate(text);
        }
      }
      if (chance(0.08)) {
        text = text + pick(";", ";", " ;", "; ;", ";\n", "; -- end", ";/* end */", ";;");
      }
      return text;
    }

    // ---------------------------------------------------------------- the grammar

    private void statement(Out q) {
      int shape = r.nextInt(100);
      Scope top = new Scope(null);
      if (shape < 5) {
        values(q, null);
      } else if (shape < 9) {
        q.kw("TABLE");
        tableName(q, pick(new ArrayList<>(TABLES.keySet())));
      } else if (shape < 30) {
        with(q, top);
      } else {
        query(q, null, top, 0, false);
      }
    }

    private void with(Out q, Scope scope) {
      q.kw("WITH");
      boolean recursive = chance(0.15);
      if (recursive) {
        q.kw("RECURSIVE");
      }
      int n = 1 + r.nextInt(2);
      Scope withScope = new Scope(null);
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          q.p(",");
        }
        // a third of the names are those of real tables: the WITH query hides the table
        String name = chance(0.35) ? pick(new ArrayList<>(TABLES.keySet())) : freshAlias();
        if (withScope.withQueries.containsKey(name)) {
          name = freshAlias();
        }
        if (recursive && i == 0) {
          String column = freshPlainAlias();
          q.name(name).p("(").name(column).p(")").kw("AS").p("(").kw("SELECT").num("1")
              .kw("UNION", "ALL").kw("SELECT").name(column).op("+").num("1").kw("FROM")
              .name(name).kw("WHERE").name(column).op("<").num(String.valueOf(2 + r.nextInt(5)))
              .p(")");
          withScope.withQueries.put(name, List.of(new Column(column, Type.INT)));
          continue;
        }
        q.name(name);
        Out body = new Out();
        List<Column> columns = query(body, null, withScope, 1, true);
        if (chance(0.25) && !columns.isEmpty()) {
          // a column list renames the outputs
          List<Column> renamed = new ArrayList<>();
          q.p("(");
          for (int k = 0; k < columns.size(); k++) {
            if (k > 0) {
              q.p(",");
            }
            String alias = freshAlias();
            q.name(alias);
            renamed.add(new Column(alias, columns.get(k).type()));
          }
          q.p(")");
          columns = renamed;
        }
        q.kw("AS");
        if (flavor == Engine.POSTGRESQL && chance(0.1)) {
          if (chance(0.5)) {
            q.kw("NOT");
          }
          q.kw("MATERIALIZED");
        }
        q.p("(").add(body).p(")");
        withScope.withQueries.put(name, columns);
      }
      Scope main = new Scope(withScope);
      query(q, null, main, 0, false);
    }

    /** A query; returns its output columns. */
    private List<Column> query(Out q, List<Type> wanted, Scope outer, int depth,
        boolean named) {
      boolean setOperation = depth < 3 && chance(0.12);
      List<Column> columns = core(q, wanted, outer, depth, named || setOperation, !setOperation);
      if (setOperation) {
        List<Type> types = columns.stream().map(Column::type).toList();
        int k = r.nextInt(5);
        q.kw(k == 0 ? "UNION" : k == 1 ? "INTERSECT" : k == 2 ? "EXCEPT" : "UNION");
        if (k == 3 || chance(0.3)) {
          q.kw("ALL");
        }
        core(q, types, outer, depth + 1, false, false);
        if (chance(0.3)) {
          q.kw("ORDER", "BY").num("1");
        }
        limit(q, outer, depth);
      }
      return columns;
    }

    /** SELECT ... FROM ... WHERE ... [GROUP BY] [ORDER BY] [LIMIT]. */
    private List<Column> core(Out q, List<Type> wanted, Scope outer, int depth, boolean named,
        boolean tail) {
      Scope scope = new Scope(outer);
      Out from = new Out();
      boolean hasFrom = chance(wanted == null ? 0.92 : 0.85);
      if (hasFrom) {
        fromClause(from, scope, depth);
      }
      q.kw("SELECT");
      if (chance(0.08)) {
        q.kw("DISTINCT");
      }
      List<Column> out;
      boolean aggregate = wanted == null && hasFrom && chance(0.15);
      Column group = null;
      Source groupSource = null;
      if (aggregate) {
        groupSource = pick(scope.sources);
        group = pick(groupSource.columns());
        column(q, scope, groupSource, group);
        q.p(",").kw("count").p("(").op("*").p(")");
        out = new ArrayList<>(List.of(group, new Column(freshPlainAlias(), Type.INT)));
        if (named) {
          q.kw("AS").name(out.get(1).name());
        }
        if (chance(0.5)) {
          Column other = pick(groupSource.columns());
          q.p(",").kw(pick("max", "min")).p("(");
          column(q, scope, groupSource, other);
          q.p(")");
          Column c = new Column(freshPlainAlias(), other.type());
          if (named) {
            q.kw("AS").name(c.name());
          }
          out.add(c);
        }
      } else {
        out = selectList(q, wanted, scope, depth, named, hasFrom);
      }
      if (hasFrom) {
        q.kw("FROM").add(from);
        if (chance(0.5)) {
          q.kw("WHERE");
          bool(q, scope, depth + 1);
        }
      } else if (chance(0.1)) {
        q.kw("WHERE");
        bool(q, scope, depth + 1);
      }
      if (aggregate) {
        q.kw("GROUP", "BY");
        column(q, scope, groupSource, group);
        if (chance(0.4)) {
          q.kw("HAVING").kw("count").p("(").op("*").p(")").op(pick(">", ">=", "<>", "="));
          if (chance(0.3) && depth < 3) {
            scalarSubquery(q, Type.INT, scope, depth + 1);
          } else {
            q.num(String.valueOf(r.nextInt(5)));
          }
        }
      }
      if (tail) {
        if (chance(0.3)) {
          q.kw("ORDER", "BY");
          if (chance(0.5) || out.isEmpty()) {
            q.num(String.valueOf(1 + r.nextInt(Math.max(1, out.size()))));
          } else if (!aggregate && hasFrom) {
            expr(q, pick(Type.INT, Type.TEXT, Type.NUM), scope, depth + 1);
          } else {
            q.num("1");
          }
          if (chance(0.3)) {
            q.kw(pick("ASC", "DESC"));
          }
        }
        limit(q, scope, depth);
      }
      return out;
    }

    private void limit(Out q, Scope scope, int depth) {
      int k = r.nextInt(10);
      if (k < 2) {
        q.kw("LIMIT").num(String.valueOf(r.nextInt(20)));
      } else if (k == 2 && depth < 3) {
        q.kw("LIMIT").p("(");
        q.kw("SELECT").kw("count").p("(").op("*").p(")").kw("FROM");
        tableName(q, pick(new ArrayList<>(TABLES.keySet())));
        q.p(")");
      } else if (k == 3) {
        q.kw("OFFSET").num(String.valueOf(r.nextInt(5)));
      } else if (k == 4) {
        q.kw("FETCH", "FIRST").num(String.valueOf(1 + r.nextInt(9))).kw("ROWS", "ONLY");
      }
    }

    private List<Column> selectList(Out q, List<Type> wanted, Scope scope, int depth,
        boolean named, boolean hasFrom) {
      List<Column> out = new ArrayList<>();
      if (wanted == null && hasFrom && !named && chance(0.15)) {
        q.op("*");
        scope.sources.forEach(s -> out.addAll(s.columns()));
        return out;
      }
      if (wanted == null && hasFrom && chance(0.1) && (scope.sources.size() == 1 || !named)) {
        Source s = pick(scope.sources);
        q.name(s.qualifier()).p(".").op("*");
        out.addAll(s.columns());
        if (named) {
          return out;
        }
        if (chance(0.5)) {
          return out;
        }
        q.p(",");
      }
      List<Type> types = wanted;
      if (types == null) {
        List<Type> t = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
          t.add(pick(Type.INT, Type.INT, Type.TEXT, Type.TEXT, Type.NUM, Type.DATE, Type.TS,
              Type.BOOL));
        }
        types = t;
      }
      for (int i = 0; i < types.size(); i++) {
        if (i > 0) {
          q.p(",");
        }
        if (wanted == null && !named && chance(0.03)) {
          q.raw(flavor == Engine.POSTGRESQL ? pick("B'0101'", "X'1F'", "b''")
              : pick("X'1F'", "x''"));
          out.add(new Column("bits", Type.TEXT));
          continue;
        }
        expr(q, types.get(i), scope, depth + 1);
        String alias = null;
        if (named || chance(0.35)) {
          alias = named ? freshPlainOrOddAlias() : freshAlias();
          if (chance(0.85)) {
            q.kw("AS");
          }
          q.name(alias);
        }
        out.add(new Column(alias == null ? "?column?" : alias, types.get(i)));
      }
      return out;
    }

    private void fromClause(Out q, Scope scope, int depth) {
      fromItem(q, scope, depth);
      int joins = depth > 0 ? r.nextInt(2) : r.nextInt(3);
      for (int i = 0; i < joins; i++) {
        int k = r.nextInt(10);
        if (k < 3) {
          q.p(",");
          fromItem(q, scope, depth);
        } else if (k < 5) {
          q.kw("CROSS", "JOIN");
          fromItem(q, scope, depth);
        } else if (k == 5 && flavor == Engine.POSTGRESQL && depth < 3) {
          q.p(",").kw("LATERAL");
          derived(q, scope, depth, scope);
        } else {
          q.kw(pick(new String[] {"JOIN"}, new String[] {"INNER", "JOIN"},
              new String[] {"LEFT", "JOIN"}, new String[] {"LEFT", "OUTER", "JOIN"},
              flavor == Engine.POSTGRESQL ? new String[] {"FULL", "JOIN"}
                  : new String[] {"RIGHT", "JOIN"}));
          Source left = pick(scope.sources);
          fromItem(q, scope, depth);
          Source right = scope.sources.get(scope.sources.size() - 1);
          q.kw("ON");
          if (chance(0.7)) {
            Column a = columnOf(left, Type.INT);
            Column b = columnOf(right, Type.INT);
            if (a != null && b != null) {
              column(q, scope, right, b);
              q.op("=");
              column(q, scope, left, a);
              continue;
            }
          }
          bool(q, scope, depth + 1);
        }
      }
    }

    private void fromItem(Out q, Scope scope, int depth) {
      int k = r.nextInt(100);
      Set<String> withNames = scope.withNames();
      if (k < 8 && depth < 2) {
        derived(q, scope, depth, null);
        return;
      }
      if (k < 11 && depth < 2) {
        String alias = freshPlainAlias();
        Out v = new Out();
        List<Column> columns = values(v, alias);
        q.p("(").add(v).p(")").kw("AS").name(alias).p("(");
        for (int i = 0; i < columns.size(); i++) {
          if (i > 0) {
            q.p(",");
          }
          q.name(columns.get(i).name());
        }
        q.p(")");
        scope.sources.add(new Source(alias, columns));
        return;
      }
      String name;
      List<Column> columns;
      if (k < 30 && !withNames.isEmpty()) {
        name = pick(new ArrayList<>(withNames));
        columns = scope.withQuery(name);
      } else {
        name = pick(new ArrayList<>(TABLES.keySet()));
        columns = scope.withQuery(name);
        if (columns == null) {
          columns = TABLES.get(name);
        }
      }
      boolean isWith = scope.withQuery(name) != null;
      if (isWith) {
        q.name(name);
      } else {
        tableName(q, name);
      }
      String qualifier = name;
      if (scope.used(name) || chance(0.6)) {
        // sometimes an alias that is another table's name: an alias is never a table
        qualifier = chance(0.15) ? pick(new ArrayList<>(TABLES.keySet())) : freshAlias();
        if (scope.used(qualifier)) {
          qualifier = freshAlias();
        }
        if (chance(0.7)) {
          q.kw("AS");
        }
        q.name(qualifier);
      }
      scope.sources.add(new Source(qualifier, columns));
    }

    /** A derived table: (query) AS alias. */
    private void derived(Out q, Scope scope, int depth, Scope lateral) {
      String alias = freshAlias();
      Out body = new Out();
      List<Column> columns = query(body, null, lateral != null ? lateral : new Scope(
          withOnly(scope)), depth + 1, true);
      q.p("(").add(body).p(")");
      if (chance(0.8)) {
        q.kw("AS");
      }
      q.name(alias);
      scope.sources.add(new Source(alias, columns));
    }

    /** A scope that holds only the WITH queries of {@code scope}: a derived table's view. */
    private Scope withOnly(Scope scope) {
      Scope s = new Scope(null);
      for (String name : scope.withNames()) {
        s.withQueries.put(name, scope.withQuery(name));
      }
      return s;
    }

    private List<Column> values(Out q, String named) {
      int columns = 1 + r.nextInt(3);
      List<Type> types = new ArrayList<>();
      for (int i = 0; i < columns; i++) {
        types.add(pick(Type.INT, Type.TEXT, Type.NUM));
      }
      q.kw("VALUES");
      int rows = 1 + r.nextInt(3);
      for (int row = 0; row < rows; row++) {
        if (row > 0) {
          q.p(",");
        }
        q.p("(");
        for (int i = 0; i < columns; i++) {
          if (i > 0) {
            q.p(",");
          }
          if (chance(0.15)) {
            // a subquery or other expression in a row
            expr(q, types.get(i), new Scope(null), 2);
          } else {
            literal(q, types.get(i));
          }
        }
        q.p(")");
      }
      List<Column> out = new ArrayList<>();
      for (Type t : types) {
        out.add(new Column(named == null ? "column" : freshPlainAlias(), t));
      }
      return out;
    }

    private void tableName(Out q, String table) {
      int k = r.nextInt(10);
      if (k == 0) {
        q.name("public").p(".").name(table);
      } else if (k == 1) {
        q.raw(pick("PUBLIC", "Public", "\"public\"")).p(".").name(table);
      } else {
        q.name(table);
      }
    }

    // ---------------------------------------------------------------- expressions

    private Column columnOf(Source s, Type type) {
      List<Column> of = s.columns().stream().filter(c -> c.type() == type
          && !c.name().equals("?column?") && !c.name().equals("column")
          && !c.name().equals("bits")).toList();
      return of.isEmpty() ? null : pick(of);
    }

    private void column(Out q, Scope scope, Source s, Column c) {
      boolean qualify = scope.sources.size() > 1 || scope.outer != null || chance(0.4);
      if (qualify) {
        q.name(s.qualifier()).p(".");
      }
      q.name(c.name());
    }

    /** A column of {@code type} from this level or, rarely, an outer one; false if none. */
    private boolean columnRef(Out q, Type type, Scope scope) {
      List<Source> candidates = new ArrayList<>();
      List<Column> columns = new ArrayList<>();
      for (Scope s = scope; s != null; s = s.outer) {
        for (Source src : s.sources) {
          Column c = columnOf(src, type);
          if (c != null) {
            candidates.add(src);
            columns.add(c);
          }
        }
        if (s == scope && !candidates.isEmpty() && chance(0.85)) {
          break;
        }
      }
      if (candidates.isEmpty()) {
        return false;
      }
      int i = r.nextInt(candidates.size());
      boolean local = scope.sources.contains(candidates.get(i));
      if (local) {
        column(q, scope, candidates.get(i), columns.get(i));
      } else {
        q.name(candidates.get(i).qualifier()).p(".").name(columns.get(i).name());
      }
      return true;
    }

    private void expr(Out q, Type type, Scope scope, int depth) {
      if (depth > 3) {
        if (!columnRef(q, type, scope)) {
          literal(q, type);
        }
        return;
      }
      int k = r.nextInt(100);
      if (k < 35 && columnRef(q, type, scope)) {
        return;
      }
      if (k < 55) {
        literal(q, type);
        return;
      }
      if (k < 61 && depth < 3 && type != Type.BOOL) {
        scalarSubquery(q, type, scope, depth + 1);
        return;
      }
      if (k < 68) {
        q.kw("CASE", "WHEN");
        bool(q, scope, depth + 1);
        q.kw("THEN");
        expr(q, type, scope, depth + 1);
        q.kw("ELSE");
        expr(q, type, scope, depth + 1);
        q.kw("END");
        return;
      }
      if (k < 71 && type != Type.BOOL) {
        q.kw("coalesce").p("(");
        expr(q, type, scope, depth + 1);
        q.p(",");
        literal(q, type);
        q.p(")");
        return;
      }
      if (k < 74 && (type == Type.INT || type == Type.TEXT)) {
        q.op("?");
        if (type == Type.INT) {
          q.op("+").num("0");
        } else {
          q.op("||").str("");
        }
        return;
      }
      switch (type) {
        case INT -> {
          int j = r.nextInt(9);
          if (j == 8) {
            operatorExpression(q, Type.INT, scope, depth);
          } else if (j < 4) {
            q.p("(");
            expr(q, Type.INT, scope, depth + 1);
            q.op(pick("+", "-", "*", "/", "%"));
            expr(q, Type.INT, scope, depth + 1);
            q.p(")");
          } else if (j == 4) {
            q.kw(pick("abs")).p("(");
            expr(q, Type.INT, scope, depth + 1);
            q.p(")");
          } else if (j == 5) {
            q.kw("length").p("(");
            expr(q, Type.TEXT, scope, depth + 1);
            q.p(")");
          } else if (j == 6) {
            q.kw("CAST").p("(");
            expr(q, Type.NUM, scope, depth + 1);
            q.kw("AS", "integer").p(")");
          } else {
            q.op("-");
            expr(q, Type.INT, scope, depth + 1);
          }
        }
        case NUM -> {
          if (chance(0.12)) {
            operatorExpression(q, Type.NUM, scope, depth);
          } else if (chance(0.5)) {
            q.p("(");
            expr(q, Type.NUM, scope, depth + 1);
            q.op(pick("+", "-", "*"));
            expr(q, pick(Type.NUM, Type.INT), scope, depth + 1);
            q.p(")");
          } else {
            q.kw("round").p("(");
            expr(q, Type.NUM, scope, depth + 1);
            q.p(",").num(String.valueOf(r.nextInt(3))).p(")");
          }
        }
        case TEXT -> {
          int j = r.nextInt(6);
          if (j < 2) {
            expr(q, Type.TEXT, scope, depth + 1);
            q.op("||");
            expr(q, Type.TEXT, scope, depth + 1);
          } else if (j == 2) {
            q.kw(pick("upper", "lower", "trim")).p("(");
            expr(q, Type.TEXT, scope, depth + 1);
            q.p(")");
          } else if (j == 3) {
            q.kw("substr").p("(");
            expr(q, Type.TEXT, scope, depth + 1);
            q.p(",").num("1").p(",").num(String.valueOf(1 + r.nextInt(4))).p(")");
          } else if (j == 4) {
            q.kw("replace").p("(");
            expr(q, Type.TEXT, scope, depth + 1);
            q.p(",");
            literal(q, Type.TEXT);
            q.p(",");
            literal(q, Type.TEXT);
            q.p(")");
          } else {
            q.kw("CAST").p("(");
            expr(q, Type.INT, scope, depth + 1);
            q.kw("AS", "varchar").p("(").num("20").p(")").p(")");
          }
        }
        case BOOL -> bool(q, scope, depth + 1);
        default -> literal(q, type);
      }
    }

    /**
     * The engines' other operators, every operator character among them: bitwise, power,
     * square root and absolute value as prefixes, regular expression matches, array
     * containment and overlap, IS DISTINCT FROM, casts with {@code ::}. Most are PostgreSQL's;
     * in H2 texts they are refused or fail, which is fine.
     */
    private void operatorExpression(Out q, Type type, Scope scope, int depth) {
      switch (type) {
        case INT -> {
          // H2 has only the casts of these
          int j = flavor == Engine.H2 ? 1 : r.nextInt(5);
          q.p("(");
          if (j == 0) {
            q.op(pick("~", "@"));
            expr(q, Type.INT, scope, depth + 1);
          } else if (j == 1) {
            expr(q, Type.TEXT, scope, depth + 1);
            q.op("::").kw(pick("integer", "int4", "bigint"));
          } else {
            expr(q, Type.INT, scope, depth + 1);
            q.op(pick("&", "|", "#", "<<", ">>"));
            expr(q, Type.INT, scope, depth + 1);
          }
          q.p(")");
        }
        case NUM -> {
          q.p("(");
          if (flavor == Engine.H2) {
            expr(q, Type.INT, scope, depth + 1);
            q.op("::").kw(pick("numeric", "double precision"));
          } else if (chance(0.5)) {
            q.op(pick("|/", "||/", "@"));
            expr(q, Type.NUM, scope, depth + 1);
          } else {
            expr(q, Type.NUM, scope, depth + 1);
            q.op("^");
            expr(q, Type.INT, scope, depth + 1);
          }
          q.p(")");
        }
        default -> {
          int j = flavor == Engine.H2 ? 2 + r.nextInt(2) : r.nextInt(4);
          if (j == 0) {
            expr(q, Type.TEXT, scope, depth + 1);
            q.op(pick("~", "~*", "!~", "!~*"));
            literal(q, Type.TEXT);
          } else if (j == 1) {
            q.kw("ARRAY").p("[");
            expr(q, Type.INT, scope, depth + 1);
            q.p(",").num("2").p("]").op(pick("@>", "<@", "&&")).kw("ARRAY").p("[");
            expr(q, Type.INT, scope, depth + 1);
            q.p("]");
          } else if (j == 2) {
            Type t = pick(Type.INT, Type.TEXT);
            expr(q, t, scope, depth + 1);
            q.kw("IS");
            if (chance(0.5)) {
              q.kw("NOT");
            }
            q.kw("DISTINCT", "FROM");
            expr(q, t, scope, depth + 1);
          } else {
            expr(q, Type.INT, scope, depth + 1);
            q.op("::").kw("text").op("=");
            literal(q, Type.TEXT);
          }
        }
      }
    }

    private void scalarSubquery(Out q, Type type, Scope scope, int depth) {
      q.p("(");
      q.kw("SELECT");
      Scope inner = new Scope(scope);
      Out from = new Out();
      fromItem(from, inner, depth + 1);
      int k = r.nextInt(3);
      if (k == 0 && type == Type.INT) {
        q.kw("count").p("(").op("*").p(")");
      } else if (k == 1 && type != Type.BOOL) {
        q.kw(pick("max", "min")).p("(");
        expr(q, type, inner, depth + 2);
        q.p(")");
      } else {
        expr(q, type, inner, depth + 2);
      }
      q.kw("FROM").add(from);
      if (chance(0.5)) {
        q.kw("WHERE");
        bool(q, inner, depth + 2);
      }
      if (k == 2) {
        q.kw("LIMIT").num("1");
      }
      q.p(")");
    }

    private void bool(Out q, Scope scope, int depth) {
      if (depth > 4) {
        comparison(q, scope, depth);
        return;
      }
      int k = r.nextInt(100);
      if (k < 5) {
        operatorExpression(q, Type.BOOL, scope, depth);
      } else if (k < 30) {
        comparison(q, scope, depth);
      } else if (k < 38) {
        q.p("(");
        bool(q, scope, depth + 1);
        q.kw(pick("AND", "OR"));
        bool(q, scope, depth + 1);
        q.p(")");
      } else if (k < 42) {
        q.kw("NOT");
        bool(q, scope, depth + 1);
      } else if (k < 48 && depth < 3) {
        if (chance(0.3)) {
          q.kw("NOT");
        }
        q.kw("EXISTS").p("(");
        Out sub = new Out();
        core(sub, null, scope, depth + 1, false, true);
        q.add(sub).p(")");
      } else if (k < 56 && depth < 3) {
        Type t = pick(Type.INT, Type.TEXT);
        expr(q, t, scope, depth + 1);
        if (chance(0.2)) {
          q.kw("NOT");
        }
        q.kw("IN").p("(");
        if (chance(0.3)) {
          literal(q, t);
          q.p(",");
          literal(q, t);
        } else {
          Out sub = new Out();
          query(sub, List.of(t), scope, depth + 1, false);
          q.add(sub);
        }
        q.p(")");
      } else if (k < 70) {
        expr(q, pick(Type.INT, Type.TEXT, Type.NUM, Type.DATE), scope, depth + 1);
        q.kw("IS");
        if (chance(0.5)) {
          q.kw("NOT");
        }
        q.kw("NULL");
      } else if (k < 76) {
        Type t = pick(Type.INT, Type.NUM, Type.DATE);
        expr(q, t, scope, depth + 1);
        q.kw("BETWEEN");
        literal(q, t);
        q.kw("AND");
        literal(q, t);
      } else if (k < 84) {
        expr(q, Type.TEXT, scope, depth + 1);
        if (chance(0.2)) {
          q.kw("NOT");
        }
        q.kw(flavor == Engine.POSTGRESQL && chance(0.3) ? "ILIKE" : "LIKE");
        literal(q, Type.TEXT);
      } else if (k < 88 && columnRef(q, Type.BOOL, scope)) {
        return;
      } else if (k < 92) {
        q.kw(pick("TRUE", "FALSE"));
      } else {
        comparison(q, scope, depth);
      }
    }

    private void comparison(Out q, Scope scope, int depth) {
      Type t = pick(Type.INT, Type.INT, Type.TEXT, Type.NUM, Type.DATE, Type.TS);
      expr(q, t, scope, depth + 1);
      q.op(pick("=", "<>", "!=", "<", "<=", ">", ">="));
      expr(q, t, scope, depth + 1);
    }

    private void literal(Out q, Type type) {
      switch (type) {
        case INT -> {
          String n = pick("0", "1", "2", "42", "007", "2147483647", "10", "995");
          if (chance(0.1)) {
            q.op("-");
          }
          q.num(n);
        }
        case NUM -> q.num(pick("1.5", ".5", "2.", "1e2", "1.5E-3", "0.0", "100.25"));
        case TEXT -> q.str(pick(STRINGS));
        case DATE -> {
          if (chance(0.2)) {
            q.kw("CURRENT_DATE");
          } else {
            q.kw("DATE").str(pick("2024-01-01", "2021-12-31", "2000-02-29"));
          }
        }
        case TS -> {
          if (chance(0.2)) {
            q.kw("CURRENT_TIMESTAMP");
          } else {
            q.kw("TIMESTAMP").str(pick("2024-01-01 10:00:00", "2021-06-30 23:59:59"));
          }
        }
        case BOOL -> q.kw(pick("TRUE", "FALSE"));
        default -> throw new IllegalArgumentException(type.toString());
      }
    }

    private String freshPlainAlias() {
      return pick(PLAIN_ALIASES) + (++counter);
    }

    private String freshAlias() {
      return chance(0.75) ? freshPlainAlias() : pick(ODD_ALIASES) + (++counter);
    }

    private String freshPlainOrOddAlias() {
      return freshAlias();
    }

    // ---------------------------------------------------------------- writing it out

    private String render(List<Piece> pieces) {
      StringBuilder b = new StringBuilder();
      String previous = null;
      for (Piece p : pieces) {
        String text = write(p);
        if (previous != null) {
          b.append(gap(required(previous, text)));
        }
        b.append(text);
        previous = text;
      }
      return b.toString();
    }

    /** Whether two written pieces would run into one token without a gap. */
    private boolean required(String before, String after) {
      char last = before.charAt(before.length() - 1);
      char first = after.charAt(0);
      if (identChar(last) && (identChar(first) || first == '$' || first == '\''
          || first == '"' || first == '&')) {
        return true;
      }
      String ops = "~!@#^&|`?+-*/%<>=";
      if (ops.indexOf(last) >= 0 && ops.indexOf(first) >= 0) {
        return !chance(0.05);
      }
      if (last == '\'' && first == '\'') {
        return !chance(0.05);
      }
      // a number runs into a following name, digit or dot ("2.AS", "1.5.x")
      boolean number = before.matches("[0-9.eE+-]+");
      return (last == '.' && Character.isDigit(first)) || (number && (identChar(first)
          || first == '.'));
    }

    private boolean identChar(char c) {
      return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }

    private String gap(boolean required) {
      int k = r.nextInt(100);
      if (!required && k < 25) {
        return "";
      }
      if (k < 75) {
        return " ";
      }
      if (k < 84) {
        return pick("\n", "\t", "  ", "\r\n", "\f", " \n\t ", "\r");
      }
      if (k < 91) {
        return blockComment();
      }
      if (k < 97) {
        return lineComment();
      }
      if (flavor == Engine.H2) {
        return chance(0.5) ? "//" + pick(COMMENT_BODIES).replace("\n", " ") + "\n"
            : pick("\u00a0", "\u3000", "\u2028", "\u2003", "\u2029");
      }
      return " " + blockComment() + lineComment() + " ";
    }

    private String blockComment() {
      String body = pick(COMMENT_BODIES);
      if (chance(0.2)) {
        // spaced, so that no body's last character runs into the nested delimiters
        body = body + " /*" + pick(COMMENT_BODIES) + "*/ " + pick(COMMENT_BODIES);
      }
      return "/*" + body + "*/";
    }

    private String lineComment() {
      return "--" + pick(COMMENT_BODIES).replace("\n", " ").replace("\r", " ")
          + pick("\n", "\n", "\r", "\r\n");
    }

    private String write(Piece p) {
      if (p instanceof Kw k) {
        return keyword(k.word());
      }
      if (p instanceof Name n) {
        return name(n.name());
      }
      if (p instanceof Str s) {
        return string(s.value());
      }
      if (p instanceof Op o) {
        return o.text().equals("<>") && chance(0.3) ? "!=" : o.text();
      }
      if (p instanceof Num n) {
        return n.text();
      }
      if (p instanceof Punct x) {
        return x.text();
      }
      return ((Raw) p).text();
    }

    private String keyword(String word) {
      return switch (r.nextInt(4)) {
        case 0 -> word.toLowerCase(Locale.ROOT);
        case 1 -> word.toUpperCase(Locale.ROOT);
        case 2 -> word.substring(0, 1).toUpperCase(Locale.ROOT)
            + word.substring(1).toLowerCase(Locale.ROOT);
        default -> {
          StringBuilder b = new StringBuilder();
          for (char c : word.toCharArray()) {
            b.append(chance(0.5) ? Character.toUpperCase(c) : Character.toLowerCase(c));
          }
          yield b.toString();
        }
      };
    }

    private boolean plain(String name) {
      return name.matches("[a-z_][a-z0-9_]*") && !Set.of("select", "from", "at").contains(name);
    }

    private String name(String name) {
      int k = r.nextInt(100);
      if (plain(name)) {
        if (k < 45) {
          return name;
        }
        if (k < 58) {
          return name.toUpperCase(Locale.ROOT);
        }
        if (k < 66) {
          return keyword(name);
        }
        if (k < 86) {
          return quoted(name);
        }
        if (flavor == Engine.H2 && k < 90) {
          return "`" + name + "`";
        }
        return unicodeName(name);
      }
      if (name.equals("at") && k < 50) {
        return name;
      }
      if (name.matches("[\\p{L}_][\\p{L}\\p{M}\\p{N}_]*") && k < 8) {
        // letters beyond ASCII, unquoted: PostgreSQL folds none of them, H2 all of them
        return k < 4 ? name : name.toUpperCase(Locale.ROOT);
      }
      return k < 75 ? quoted(name) : unicodeName(name);
    }

    private String quoted(String name) {
      return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private String unicodeName(String name) {
      char escape = chance(0.7) ? '\\' : pick('!', '#', '*', '=', '~');
      String body = unicodeBody(name, escape, '"');
      return (chance(0.5) ? "U&\"" : "u&\"") + body + "\"" + uescape(escape);
    }

    private String uescape(char escape) {
      if (escape == '\\' && chance(0.9)) {
        return "";
      }
      return pick(" ", "\n", "/* c */", " -- c\n") + keyword("UESCAPE")
          + pick(" ", "", "\t") + "'" + escape + "'";
    }

    private String unicodeBody(String value, char escape, char quote) {
      StringBuilder b = new StringBuilder();
      value.codePoints().forEach(cp -> {
        if (cp == escape) {
          b.append(escape).append(escape);
        } else if (cp == quote) {
          b.append(quote).append(quote);
        } else if (chance(0.5)) {
          b.appendCodePoint(cp);
        } else if (cp <= 0xFFFF && chance(0.7)) {
          b.append(escape).append(String.format("%04X", cp));
        } else {
          b.append(escape).append('+').append(String.format("%06x", cp));
        }
      });
      return b.toString();
    }

    // ---------------------------------------------------------------- strings

    private String string(String value) {
      int k = r.nextInt(100);
      if (flavor == Engine.POSTGRESQL) {
        if (k < 35) {
          return standard(value);
        }
        if (k < 55) {
          return (chance(0.5) ? "E" : "e") + "'" + escaped(value) + "'";
        }
        if (k < 70) {
          String d = dollar(value);
          if (d != null) {
            return d;
          }
          return standard(value);
        }
        if (k < 82) {
          char escape = chance(0.7) ? '\\' : pick('!', '#', '*', '=', '~');
          return (chance(0.5) ? "U&'" : "u&'") + unicodeBody(value, escape, '\'') + "'"
              + uescape(escape);
        }
        if (k < 99 || chance(0.7)) {
          return continued(value);
        }
        // refused by the PostgreSQL lexer: rare, or few texts would pass
        return "N" + standard(value);
      }
      if (k < 40) {
        return standard(value);
      }
      if (k < 50) {
        return "N" + standard(value);
      }
      if (k < 65) {
        char escape = chance(0.7) ? '\\' : pick('!', '#', '*', '=', '~');
        return "U&'" + unicodeBody(value, escape, '\'') + "'" + uescape(escape);
      }
      if (k < 80) {
        String d = dollar(value);
        return d == null ? standard(value) : d;
      }
      return continued(value);
    }

    private String standard(String value) {
      return "'" + value.replace("'", "''") + "'";
    }

    private String dollar(String value) {
      String tag = flavor == Engine.H2 ? "" : pick("", "", "a", "tag", "_1", "\u00e9", "Q", "x9");
      String delimiter = "$" + tag + "$";
      if ((value + delimiter).indexOf(delimiter) != value.length()) {
        return null;
      }
      return delimiter + value + delimiter;
    }

    /** The value in parts, continued across line breaks (PostgreSQL) or any space (H2). */
    private String continued(String value) {
      int parts = 2 + r.nextInt(2);
      List<String> pieces = new ArrayList<>();
      int at = 0;
      for (int i = 0; i < parts; i++) {
        int end = i == parts - 1 ? value.length() : at + r.nextInt(value.length() - at + 1);
        // a surrogate pair stays whole
        if (end > 0 && end < value.length() && Character.isHighSurrogate(value.charAt(end - 1))) {
          end++;
        }
        pieces.add(value.substring(at, Math.min(end, value.length())));
        at = Math.min(end, value.length());
      }
      boolean escapeForm = flavor == Engine.POSTGRESQL && chance(0.3);
      StringBuilder b = new StringBuilder(escapeForm ? "E" : "");
      for (int i = 0; i < pieces.size(); i++) {
        if (i > 0) {
          b.append(flavor == Engine.POSTGRESQL
              ? pick("\n", " \n", "\n ", "\r", "\r\n", " -- c\n", "\n-- c\n  ", "\t\n\f",
                  " --\n  --x\n ")
              : pick(" ", "\n", "/* c */", "// c\n", "\t", "  \n  "));
        }
        b.append("'").append(escapeForm ? escaped(pieces.get(i))
            : pieces.get(i).replace("'", "''")).append("'");
      }
      return b.toString();
    }

    /** The body of an E'...' string for {@code value}, each character in a form at random. */
    private String escaped(String value) {
      StringBuilder b = new StringBuilder();
      value.codePoints().forEach(cp -> {
        int k = r.nextInt(10);
        switch (cp) {
          case '\'' -> b.append(k < 5 ? "''" : "\\'");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append(k < 5 ? "\\n" : "\n");
          case '\t' -> b.append(k < 5 ? "\\t" : "\t");
          case '\r' -> b.append(k < 5 ? "\\r" : "\r");
          case '\b' -> b.append("\\b");
          case '\f' -> b.append("\\f");
          default -> {
            if (cp < 0x80 && cp > 0) {
              if (k < 5) {
                b.appendCodePoint(cp);
              } else if (k == 5) {
                b.append(String.format("\\x%02x", cp));
              } else if (k == 6) {
                b.append(String.format("\\%03o", cp));
              } else if (k == 7) {
                b.append(String.format("\\u%04X", cp));
              } else if (k == 8) {
                b.append(String.format("\\U%08x", cp));
              } else if (Character.isLetter(cp) && "bfnrtxuU".indexOf(cp) < 0) {
                // an unknown escape is the character itself
                b.append('\\').appendCodePoint(cp);
              } else {
                b.appendCodePoint(cp);
              }
            } else if (k < 5) {
              b.appendCodePoint(cp);
            } else if (cp <= 0xFFFF) {
              b.append(String.format("\\u%04x", cp));
            } else {
              b.append(String.format("\\U%08X", cp));
            }
          }
        }
      });
      return b.toString();
    }

    // ---------------------------------------------------------------- mutations

    private String mutate(String text) {
      int n = 1 + r.nextInt(3);
      for (int i = 0; i < n; i++) {
        switch (r.nextInt(10)) {
          case 0, 1 -> {
            String[] pair = PAIRS[r.nextInt(PAIRS.length)];
            int a = position(text);
            int b = a + r.nextInt(text.length() - a + 1);
            b = safe(text, b);
            text = text.substring(0, a) + pair[0] + text.substring(a, b) + pair[1]
                + text.substring(b);
          }
          case 2, 3 -> text = insert(text, pick(FRAGMENTS));
          case 4 -> text = insert(text, cut(pick(ATTACKS)));
          case 5 -> {
            int a = position(text);
            int b = safe(text, Math.min(text.length(), a + 1 + r.nextInt(10)));
            text = text.substring(0, a) + text.substring(b);
          }
          case 6 -> text = insert(text, cut(text));
          case 7 -> {
            int a = position(text);
            int b = safe(text, Math.min(text.length(), a + 1));
            text = text.substring(0, a) + pick(FRAGMENTS) + text.substring(b);
          }
          case 8 -> text = insert(text, pick("; ", ";", ";\n") + pick(SMUGGLED));
          default -> text = insert(text, chance(0.5) ? blockComment() : " " + string(
              pick(STRINGS)) + " ");
        }
        if (text.isEmpty()) {
          text = "SELECT 1";
        }
      }
      return text;
    }

    private String insert(String text, String fragment) {
      int at = position(text);
      return text.substring(0, at) + fragment + text.substring(at);
    }

    /** A random position, half the time at a space (where a fragment keeps more texts valid). */
    private int position(String text) {
      if (chance(0.5)) {
        List<Integer> spaces = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
          if (text.charAt(i) == ' ') {
            spaces.add(i);
          }
        }
        if (!spaces.isEmpty()) {
          return pick(spaces);
        }
      }
      return safe(text, r.nextInt(text.length() + 1));
    }

    /** Moves a position off the middle of a surrogate pair. */
    private int safe(String text, int at) {
      if (at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))
          && Character.isHighSurrogate(text.charAt(at - 1))) {
        return at + 1;
      }
      return at;
    }

    private String cut(String text) {
      if (text.isEmpty()) {
        return text;
      }
      int a = safe(text, r.nextInt(text.length()));
      int b = safe(text, Math.min(text.length(), a + 1 + r.nextInt(40)));
      return text.substring(a, Math.max(a, b));
    }
  }
}
