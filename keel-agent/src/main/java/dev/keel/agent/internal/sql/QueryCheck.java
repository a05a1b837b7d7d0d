package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.Node;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The first of the agent's read-only layers: a statement check that runs before anything
 * reaches the database. The others hold without it (see {@code docs/agent.md}): the engine runs
 * one statement per call in a session that is read-only as a whole and reset before reuse.
 *
 * <p>The statement is read by the lexer of its engine ({@link SqlLexer}), which refuses what it
 * cannot place with certainty, then rewritten in a canonical form that JSqlParser and the engine
 * provably split the same way ({@link CanonicalSql}); that form is parsed, checked and, after
 * the rewrites below, run. A statement passes only when all of these hold:
 * <ul>
 *   <li>the engine's tokens hold exactly one statement (a trailing {@code ;} is fine), which
 *       JSqlParser parses as a query ({@code SELECT}, {@code WITH ... SELECT}, {@code VALUES},
 *       {@code TABLE}), nested no deeper than the check follows;</li>
 *   <li>no write or DDL keyword, no {@code INTO}, no locking clause, no {@code NEXT VALUE
 *       FOR}, no call of a function that changes state, runs SQL given as text, reads server
 *       files, signals other sessions or reveals the catalog, and no catalog type
 *       ({@code regclass} and friends), quoted or not;</li>
 *   <li>every table it reads is one the caller may see, in the agent's schema.</li>
 * </ul>
 * Two rewrites follow: a table with hidden columns becomes a subquery of its visible columns
 * (done by the caller from {@link CheckedQuery#narrowed()}), and every WITH query is renamed to a
 * fresh name no real table can have, so no engine can resolve a WITH name to a real table (H2
 * does, before the WITH query) or the other way round. Everything refused is refused with a
 * message that names no table the caller may not see.
 */
public final class QueryCheck {

  /** The longest statement accepted, in characters. */
  public static final int MAX_SQL_CHARS = 20_000;

  /** How deep parentheses, CASE and prefix operators may nest. */
  static final int MAX_NESTING = 100;

  /** How long the parser may take before the statement is refused. */
  static final long PARSE_TIMEOUT_MILLIS = 2_000;

  // JSqlParser logs every parse at INFO through java.util.logging; keep a strong reference so
  // the level sticks.
  private static final Logger PARSER_LOG = Logger.getLogger("net.sf.jsqlparser");

  // The parser recurses per nesting level; within MAX_NESTING this stack is ample, and a
  // StackOverflowError past it is still caught and answered as "too deep".
  private static final ExecutorService PARSER_THREADS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(null, r, "keel-agent-sql-parser", 16L << 20);
    t.setDaemon(true);
    return t;
  });

  private static final SecureRandom RANDOM = new SecureRandom();

  static {
    PARSER_LOG.setLevel(Level.WARNING);
  }

  // Statement keywords only: words that are also common function or column names (REPLACE,
  // LOAD, CLUSTER) would refuse honest queries, and the parser already refuses non-queries.
  private static final Set<String> WRITE_WORDS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE",
      "UPSERT", "TRUNCATE", "DROP", "ALTER", "CREATE", "GRANT", "REVOKE", "VACUUM", "NOTIFY",
      "LISTEN", "COPY", "CALL", "EXECUTE", "EXEC", "REFRESH", "REINDEX", "CHECKPOINT",
      "COMMIT", "ROLLBACK", "SAVEPOINT", "PREPARE", "DEALLOCATE", "DISCARD", "UNLISTEN");

  private static final Set<String> CATALOG_TYPES = Set.of("regclass", "regproc",
      "regprocedure", "regoper", "regoperator", "regtype", "regconfig", "regdictionary",
      "regnamespace", "regrole", "regcollation");

  /**
   * The types a cast, a {@code ::} or a typed literal may name: the engines' built-in types.
   * A table's row type is a type too ({@code NULL::secrets}, {@code (NULL::customers).ssn}),
   * and would tell a hidden table or column from one that does not exist; only the row types of
   * tables the caller sees whole are allowed besides these.
   */
  private static final Set<String> BUILTIN_TYPES = Set.of("bigint", "int8", "bigserial",
      "serial8", "bit", "varbit", "boolean", "bool", "box", "bytea", "character", "char",
      "varchar", "cidr", "circle", "date", "double", "float8", "float4", "float", "inet",
      "integer", "int", "int4", "int2", "interval", "json", "jsonb", "jsonpath", "line", "lseg",
      "macaddr", "macaddr8", "money", "numeric", "decimal", "path", "point", "polygon", "real",
      "smallint", "smallserial", "serial", "serial4", "text", "time", "timetz", "timestamp",
      "timestamptz", "tsquery", "tsvector", "uuid", "xml", "name", "bpchar", "oid", "record",
      "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
      "int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange",
      "datemultirange", "citext",
      // H2
      "tinyint", "clob", "blob", "binary", "varbinary", "decfloat", "varchar_ignorecase",
      "geometry", "array", "row", "enum", "long", "number", "varchar2", "nvarchar",
      "nvarchar2", "nchar",
      // MySQL and MariaDB (CAST(x AS SIGNED), CAST(x AS DATETIME))
      "signed", "unsigned", "datetime", "year", "mediumint", "tinytext", "mediumtext",
      "longtext");

  /**
   * Words after which a string literal is a value, not a typed literal: keywords and the
   * parts of function syntax that take a string.
   */
  private static final Set<String> BEFORE_A_VALUE = Set.of("select", "where", "having", "on",
      "and", "or", "not", "like", "ilike", "escape", "to", "then", "else", "when", "case", "is",
      "from", "for", "in", "by", "limit", "offset", "fetch", "distinct", "all", "any", "some",
      "zone", "leading", "trailing", "both", "placing", "key", "value", "separator", "as",
      "between", "symmetric", "asymmetric", "returning", "format", "json", "similar", "with",
      "union", "intersect", "except", "minus", "using", "collate", "over", "filter", "exists",
      "array", "row", "values", "date", "time", "timestamp", "interval", "null", "default",
      "first", "last", "nulls", "asc", "desc", "uescape", "end", "only", "ties", "rows",
      "within", "group", "partition", "range", "groups", "preceding", "following", "current",
      "unbounded", "exclude", "others", "no", "at", "local", "set", "of",
      // the last word of a type written in words: DOUBLE PRECISION '1', CHARACTER VARYING 'x'
      "precision", "varying",
      // MySQL and MariaDB operators written as words: x REGEXP 'a', x LIKE BINARY 'a'
      "regexp", "rlike", "xor", "div", "mod", "binary", "against", "sounds");

  /** Functions refused by exact name (lower case). */
  private static final Set<String> DENIED_FUNCTIONS = Set.of(
      // state and settings
      "set_config", "current_setting", "nextval", "setval", "currval", "lastval", "setseed",
      "txid_current", "txid_current_if_assigned", "set_bit", "set_byte",
      // SQL given as text
      "ts_stat", "ts_rewrite", "xpath_table",
      // H2: files, sessions, catalog, variables
      "file_read", "file_write", "csvread", "csvwrite", "link_schema", "cancel_session",
      "abort_session", "session_id", "set", "disk_space_used", "memory_free", "memory_used",
      "database_path", "transaction_id", "lock_mode", "lock_timeout", "readonly", "signal",
      "autocommit", "h2version",
      // other engines
      "sleep", "benchmark", "load_file", "sys_exec", "sys_eval", "xp_cmdshell");

  /** Function name prefixes refused (lower case). */
  private static final List<String> DENIED_PREFIXES = List.of("pg_", "lo_", "dblink",
      "db_object_", "to_reg", "has_", "xp_", "sp_", "utl_", "dbms_", "txid_");

  /** Functions allowed although a prefix above would refuse them. */
  private static final Set<String> ALLOWED_FUNCTIONS = Set.of("pg_sleep", "pg_typeof");

  private final Dialect dialect;
  private final SqlLexer lexer;
  private final Identifiers identifiers;
  private final String schema;
  private final FunctionJudge functions;

  /**
   * Creates the check for a database.
   *
   * @param schema the one schema the agent exposes, as the database stores its name
   */
  public QueryCheck(Dialect dialect, Identifiers identifiers, String schema) {
    this(dialect, identifiers, schema, FunctionJudge.ALLOW_ALL);
  }

  /**
   * Creates the check for a database whose functions are also judged by {@code functions}
   * (after the deny list, which refuses whatever the judge would say).
   */
  public QueryCheck(Dialect dialect, Identifiers identifiers, String schema,
      FunctionJudge functions) {
    this.functions = functions;
    this.dialect = dialect;
    this.lexer = SqlLexer.of(dialect, identifiers.fold());
    this.identifiers = identifiers;
    this.schema = schema;
  }

  /** Returns the engine this check reads statements for. */
  public Dialect dialect() {
    return dialect;
  }

  /** Returns the lexer of the engine. */
  public SqlLexer lexer() {
    return lexer;
  }

  /**
   * Checks {@code sql} for a caller who may see {@code visibleTables} (database names), of
   * which {@code restrictedTables} hide some columns.
   *
   * @throws QueryRefusedException saying why the statement will not run
   * @throws StatementTooDeepException when it nests deeper than the check follows
   */
  public CheckedQuery check(String sql, Set<String> visibleTables, Set<String> restrictedTables) {
    if (sql == null || sql.isBlank()) {
      throw new QueryRefusedException("The query is empty");
    }
    if (sql.length() > MAX_SQL_CHARS) {
      throw new QueryRefusedException("The query is longer than " + MAX_SQL_CHARS
          + " characters");
    }
    List<SqlToken> tokens = withoutTrailingSemicolons(lexer.lex(sql));
    if (tokens.isEmpty()) {
      throw new QueryRefusedException("The query is empty");
    }
    requireShallow(tokens);
    if (dialect == Dialect.MYSQL) {
      MySqlTraps.check(tokens);
    }
    Set<String> wholeTables = new java.util.HashSet<>(visibleTables);
    wholeTables.removeAll(restrictedTables);
    int parameters = checkTokens(tokens, functions);
    if (dialect == Dialect.SQLITE) {
      SqliteTraps.check(tokens);
    }
    if (dialect == Dialect.H2) {
      H2Traps.check(tokens);
    }
    checkTypes(tokens, wholeTables);
    CanonicalSql canonical = CanonicalSql.of(sql, tokens, lexer);
    String text = canonical.text();
    Statement statement = parse(text);
    if (!(statement instanceof Select)) {
      throw new QueryRefusedException("Only queries are allowed (SELECT, WITH ... SELECT, "
          + "VALUES, TABLE); this statement is a "
          + statement.getClass().getSimpleName().toUpperCase(Locale.ROOT));
    }
    TableReferences refs;
    try {
      refs = TableReferences.of(statement, identifiers);
    } catch (StackOverflowError e) {
      throw new StatementTooDeepException();
    } catch (RuntimeException e) {
      if (e instanceof QueryRefusedException || e instanceof StatementTooDeepException) {
        throw e;
      }
      throw new QueryRefusedException("The statement could not be analysed");
    }
    Set<String> tables = new LinkedHashSet<>();
    List<CheckedQuery.Narrowed> narrowed = new ArrayList<>();
    for (TableReferences.Ref ref : refs.tables()) {
      String name = resolve(ref, visibleTables);
      tables.add(name);
      if (restrictedTables.contains(name)) {
        Span span = span(canonical, ref);
        narrowed.add(new CheckedQuery.Narrowed(name, span.begin, span.end, span.alias,
            span.statement));
      }
    }
    List<CheckedQuery.Renamed> renamed = renameWithQueries(canonical, refs);
    List<int[]> edits = new ArrayList<>();
    narrowed.forEach(n -> edits.add(new int[] {n.begin(), n.end()}));
    renamed.forEach(r -> edits.add(new int[] {r.begin(), r.end()}));
    edits.sort(Comparator.comparingInt(e -> e[0]));
    for (int i = 1; i < edits.size(); i++) {
      if (edits.get(i)[0] < edits.get(i - 1)[1]) {
        throw new QueryRefusedException("The query could not be narrowed to your columns");
      }
    }
    narrowed.sort(Comparator.comparingInt(CheckedQuery.Narrowed::begin));
    return new CheckedQuery(text, new ArrayList<>(tables), narrowed, renamed, parameters);
  }

  /**
   * Where a table mention starts and ends in the canonical text, and the name it goes by;
   * {@code statement} when the mention is a whole {@code TABLE name} statement, which the span
   * then covers from the keyword on.
   */
  private record Span(int begin, int end, String alias, boolean statement) {}

  /**
   * Locates a table mention: the name and its alias, nothing else (a sample clause, hints, a
   * column alias list or a pivot cannot be rewritten, so they are refused).
   */
  private static Span span(CanonicalSql canonical, TableReferences.Ref ref) {
    Node node = ref.table().getASTNode();
    String refusal = ref.withQuery() ? "A WITH query can be read here only as a plain FROM or "
        + "JOIN item" : "A table you see only part of (some columns or rows) can be read here "
        + "only as a plain FROM or JOIN item";
    if (node == null || node.jjtGetFirstToken() == null || node.jjtGetLastToken() == null) {
      throw new QueryRefusedException(refusal);
    }
    int begin = node.jjtGetFirstToken().absoluteBegin - 1;
    int end = node.jjtGetLastToken().absoluteEnd - 1;
    List<SqlToken> span = new ArrayList<>();
    for (SqlToken t : canonical.tokens()) {
      if (t.begin() >= begin && t.end() <= end) {
        span.add(t);
      }
    }
    if (span.isEmpty() || span.get(0).begin() != begin || span.get(span.size() - 1).end() != end) {
      throw new QueryRefusedException(refusal);
    }
    int parts = ref.parts().size();
    int expected = parts * 2 - 1;
    if (span.size() < expected) {
      throw new QueryRefusedException(refusal);
    }
    for (int i = 0; i < expected; i++) {
      boolean dot = i % 2 == 1;
      if (dot != span.get(i).is(".") || (!dot && !span.get(i).isName())) {
        throw new QueryRefusedException(refusal);
      }
    }
    List<SqlToken> rest = span.subList(expected, span.size());
    if (!rest.isEmpty() && rest.get(0).isKeyword("AS")) {
      rest = rest.subList(1, rest.size());
    }
    if (rest.size() > 1 || (rest.size() == 1 && !rest.get(0).isName())) {
      throw new QueryRefusedException(refusal);
    }
    SqlToken alias = rest.isEmpty() ? span.get(expected - 1) : rest.get(0);
    String name = canonical.text().substring(alias.begin(), alias.end());
    int first = canonical.tokens().indexOf(span.get(0));
    if (first > 0 && canonical.tokens().get(first - 1).isKeyword("TABLE")) {
      // TABLE name: only a name may follow the keyword, so it becomes SELECT * FROM (...)
      return new Span(canonical.tokens().get(first - 1).begin(), end, name, true);
    }
    return new Span(begin, end, name, false);
  }

  /**
   * Renames every WITH query, where it is defined and wherever a reference resolves to it, to
   * one fresh quoted name per original name. Scoping is unchanged (the engine scopes the new
   * names exactly as the old ones), and a name the rename misses or wrongly hits can only fail
   * to resolve: the new names belong to no real object.
   */
  private List<CheckedQuery.Renamed> renameWithQueries(CanonicalSql canonical,
      TableReferences refs) {
    Set<String> names = refs.withQueryNames();
    if (names.isEmpty()) {
      return List.of();
    }
    String salt = HexFormat.of().formatHex(randomBytes());
    java.util.Map<String, String> fresh = new java.util.HashMap<>();
    for (String name : names) {
      fresh.put(name, "\"keel_with_" + salt + "_" + fresh.size() + "\"");
    }
    List<CheckedQuery.Renamed> renamed = new ArrayList<>();
    List<SqlToken> tokens = canonical.tokens();
    int definitions = 0;
    for (int i = 0; i < tokens.size(); i++) {
      if (!tokens.get(i).isKeyword("WITH") || (i > 0 && !tokens.get(i - 1).is("("))) {
        continue;
      }
      int k = i + 1;
      if (k < tokens.size() && tokens.get(k).isKeyword("RECURSIVE")) {
        k++;
      }
      while (true) {
        if (k >= tokens.size() || !tokens.get(k).isName()) {
          throw new QueryRefusedException("The WITH clause could not be analysed");
        }
        SqlToken name = tokens.get(k);
        String normalized = identifiers.normalize(canonical.text().substring(name.begin(),
            name.end()));
        String replacement = fresh.get(normalized);
        if (replacement == null) {
          throw new QueryRefusedException("The WITH clause could not be analysed");
        }
        renamed.add(new CheckedQuery.Renamed(name.begin(), name.end(), replacement));
        definitions++;
        k++;
        if (k < tokens.size() && tokens.get(k).is("(")) {
          k = closing(tokens, k) + 1;
        }
        if (k >= tokens.size() || !tokens.get(k).isKeyword("AS")) {
          throw new QueryRefusedException("The WITH clause could not be analysed");
        }
        k++;
        if (k < tokens.size() && tokens.get(k).isKeyword("NOT")) {
          k++;
        }
        if (k < tokens.size() && tokens.get(k).isKeyword("MATERIALIZED")) {
          k++;
        }
        if (k >= tokens.size() || !tokens.get(k).is("(")) {
          throw new QueryRefusedException("The WITH clause could not be analysed");
        }
        k = closing(tokens, k) + 1;
        if (k < tokens.size() && tokens.get(k).is(",")) {
          k++;
          continue;
        }
        break;
      }
    }
    if (definitions < names.size()) {
      throw new QueryRefusedException("The WITH clause could not be analysed");
    }
    for (TableReferences.Ref ref : refs.withQueryReferences()) {
      Span span = span(canonical, ref);
      String name = identifiers.normalize(ref.name());
      renamed.add(new CheckedQuery.Renamed(span.begin, span.end, fresh.get(name) + " AS "
          + span.alias));
    }
    return renamed;
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[8];
    RANDOM.nextBytes(bytes);
    return bytes;
  }

  /** Returns the index of the parenthesis that closes the one at {@code open}. */
  static int closing(List<SqlToken> tokens, int open) {
    int depth = 0;
    for (int k = open; k < tokens.size(); k++) {
      if (tokens.get(k).is("(")) {
        depth++;
      } else if (tokens.get(k).is(")") && --depth == 0) {
        return k;
      }
    }
    throw new QueryRefusedException("The statement has unbalanced parentheses");
  }

  private String resolve(TableReferences.Ref ref, Set<String> visibleTables) {
    List<String> parts = ref.parts();
    if (parts.size() > 2) {
      throw new QueryRefusedException(QueryRefusedException.TABLE_NOT_FOUND);
    }
    if (parts.size() == 2 && !identifiers.normalize(parts.get(0)).equals(schema)) {
      throw new QueryRefusedException(QueryRefusedException.TABLE_NOT_FOUND);
    }
    String name = identifiers.normalize(ref.name());
    if (!visibleTables.contains(name)) {
      throw new QueryRefusedException(QueryRefusedException.TABLE_NOT_FOUND);
    }
    return name;
  }

  private static List<SqlToken> withoutTrailingSemicolons(List<SqlToken> tokens) {
    int end = tokens.size();
    while (end > 0 && tokens.get(end - 1).is(";")) {
      end--;
    }
    for (int i = 0; i < end; i++) {
      if (tokens.get(i).is(";")) {
        throw new QueryRefusedException("Only one statement at a time is allowed");
      }
    }
    return tokens.subList(0, end);
  }

  /**
   * Refuses, before any parser runs, statements nested deeper than {@link #MAX_NESTING}:
   * parentheses and CASE open a level, and so does each of a run of prefix operators
   * ({@code NOT NOT NOT ...}, {@code - - -}).
   */
  private static void requireShallow(List<SqlToken> tokens) {
    int depth = 0;
    int run = 0;
    for (SqlToken t : tokens) {
      if (t.is("(") || t.isKeyword("CASE")) {
        depth++;
      } else if (t.is(")") || t.isKeyword("END")) {
        depth--;
      }
      boolean prefix = t.isKeyword("NOT") || t.is("-") || t.is("+") || t.is("~")
          || t.isKeyword("EXISTS") || t.isKeyword("PRIOR");
      run = prefix ? run + 1 : 0;
      if (depth + run > MAX_NESTING) {
        throw new StatementTooDeepException();
      }
    }
  }

  /** Runs the word checks; returns the number of {@code ?} parameters. */
  private static int checkTokens(List<SqlToken> tokens, FunctionJudge functions) {
    int parameters = 0;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken t = tokens.get(i);
      SqlToken next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      if (t.kind() == Kind.PARAMETER) {
        parameters++;
      }
      if (t.kind() == Kind.WORD) {
        String word = t.value().toUpperCase(Locale.ROOT);
        if (WRITE_WORDS.contains(word)) {
          throw new QueryRefusedException("Only read-only queries are allowed; the statement "
              + "contains " + word);
        }
        if (word.equals("INTO")) {
          throw new QueryRefusedException("SELECT ... INTO is not allowed: it writes");
        }
        if (word.equals("FOR") && next != null && next.kind() == Kind.WORD
            && Set.of("UPDATE", "SHARE", "NO", "KEY").contains(
                next.value().toUpperCase(Locale.ROOT))) {
          throw new QueryRefusedException("Locking clauses (FOR UPDATE, FOR SHARE) are not "
              + "allowed");
        }
        if (word.equals("NEXT") && next != null && next.isKeyword("VALUE")) {
          throw new QueryRefusedException("NEXT VALUE FOR is not allowed: it advances a "
              + "sequence");
        }
      }
      if (t.isName() && CATALOG_TYPES.contains(t.lower())) {
        throw new QueryRefusedException("Catalog types such as regclass are not allowed");
      }
      if (t.isName() && next != null && next.is("(")) {
        String function = t.lower();
        if (deniedFunction(function)) {
          throw new QueryRefusedException("The function " + function + " is not allowed: it "
              + "can change state, run other SQL, read server files or reveal the catalog");
        }
        // --- function judge (engine catalog): begin ---
        SqlToken before = i >= 2 && tokens.get(i - 1).is(".") ? tokens.get(i - 2) : null;
        String qualifier = before == null || !before.isName() ? null
            : before.kind() == Kind.QUOTED_IDENTIFIER ? before.value() : before.lower();
        String refusal = functions.refusal(qualifier,
            t.kind() == Kind.QUOTED_IDENTIFIER ? t.value() : function);
        if (refusal != null) {
          throw new QueryRefusedException(refusal);
        }
        // --- function judge: end ---
      }
      // --- operator judge (engine catalog): begin ---
      if (t.kind() == Kind.OPERATOR && !t.is("::")) {
        // a schema only in OPERATOR(schema.op); elsewhere "x." before an operator is t.*
        boolean qualified = i >= 4 && tokens.get(i - 1).is(".") && tokens.get(i - 2).isName()
            && tokens.get(i - 3).is("(") && tokens.get(i - 4).isKeyword("OPERATOR");
        SqlToken owner = qualified ? tokens.get(i - 2) : null;
        String refusal = functions.operatorRefusal(owner == null ? null
            : owner.kind() == Kind.QUOTED_IDENTIFIER ? owner.value() : owner.lower(), t.value());
        if (refusal != null) {
          throw new QueryRefusedException(refusal);
        }
      }
      // --- operator judge: end ---
    }
    return parameters;
  }

  /**
   * Every type a statement names in a cast ({@code CAST(x AS t)}, {@code x::t}) or a typed
   * literal ({@code t '...'}) must be a built-in type or the row type of a table the caller
   * sees whole; anything else, a hidden table's row type and a type that does not exist alike,
   * gets the same refusal.
   */
  private void checkTypes(List<SqlToken> tokens, Set<String> wholeTables) {
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken t = tokens.get(i);
      int type = -1;
      if (t.is("::")) {
        type = i + 1;
      } else if (t.isKeyword("CAST") && i + 1 < tokens.size() && tokens.get(i + 1).is("(")) {
        int close = closing(tokens, i + 1);
        int depth = 0;
        for (int k = i + 1; k < close; k++) {
          if (tokens.get(k).is("(")) {
            depth++;
          } else if (tokens.get(k).is(")")) {
            depth--;
          } else if (depth == 1 && tokens.get(k).isKeyword("AS")) {
            type = k + 1;
          }
        }
        if (type < 0) {
          throw new QueryRefusedException("CAST needs AS and a type");
        }
      } else if (t.isName() && i + 1 < tokens.size()
          && tokens.get(i + 1).kind() == Kind.STRING
          && !(i > 0 && (tokens.get(i - 1).is(".") || tokens.get(i - 1).is("::")))
          && (t.kind() == Kind.QUOTED_IDENTIFIER || !BEFORE_A_VALUE.contains(t.lower()))) {
        type = i;
      }
      if (type < 0) {
        continue;
      }
      // a qualified type (pg_catalog.int4, public.secrets) is judged by its last part
      int last = type;
      while (last + 2 < tokens.size() && tokens.get(last + 1).is(".")
          && tokens.get(last + 2).isName()) {
        last += 2;
      }
      if (type >= tokens.size() || !tokens.get(last).isName()) {
        throw new QueryRefusedException("A cast needs a type name");
      }
      SqlToken name = tokens.get(last);
      boolean qualified = last > type;
      String schemaPart = qualified ? tokens.get(last - 2).value() : null;
      boolean builtin = name.kind() == Kind.WORD && BUILTIN_TYPES.contains(name.lower())
          && (!qualified || schemaPart.equalsIgnoreCase("pg_catalog"));
      boolean ownRowType = wholeTables.contains(name.value())
          && (!qualified || schemaPart.equals(schema));
      if (!builtin && !ownRowType) {
        throw new QueryRefusedException("Casts and typed literals may name only built-in "
            + "types (and the row types of tables you may read whole)");
      }
    }
  }

  static boolean deniedFunction(String name) {
    if (ALLOWED_FUNCTIONS.contains(name)) {
      return false;
    }
    if (DENIED_FUNCTIONS.contains(name) || name.contains("_to_xml")
        || name.endsWith("_description")) {
      return true;
    }
    for (String prefix : DENIED_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static Statement parse(String sql) {
    Statements statements;
    try {
      statements = CCJSqlParserUtil.parseStatements(sql, PARSER_THREADS,
          parser -> parser.withTimeOut(PARSE_TIMEOUT_MILLIS));
    } catch (JSQLParserException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof StackOverflowError) {
          throw new StatementTooDeepException();
        }
      }
      throw new QueryRefusedException("The statement could not be parsed as one SQL query"
          + reason(e));
    } catch (StackOverflowError e) {
      throw new StatementTooDeepException();
    }
    if (statements == null || statements.size() != 1 || statements.get(0) == null) {
      throw new QueryRefusedException(statements != null && statements.size() > 1
          ? "Only one statement at a time is allowed"
          : "The statement could not be parsed as one SQL query");
    }
    return statements.get(0);
  }

  /**
   * Says where parsing failed, but not what the parser saw there: its message quotes the
   * statement, which may hold names the caller may not see, and echoing those only for names
   * that exist would tell hidden tables apart from missing ones.
   */
  private static String reason(JSQLParserException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ParseException pe && pe.currentToken != null
          && pe.currentToken.next != null) {
        return " (near line " + pe.currentToken.next.beginLine + ", column "
            + pe.currentToken.next.beginColumn + ")";
      }
    }
    return "";
  }
}
