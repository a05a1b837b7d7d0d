package dev.keel.agent.internal.sql;

import java.util.ArrayList;
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
 * The first of the agent's two read-only layers: a statement check that runs before anything
 * reaches the database. The second, independent layer is the read-only transaction (or
 * read-only database user) the statement then runs in.
 *
 * <p>A statement passes only when all of these hold:
 * <ul>
 *   <li>JSqlParser parses it as exactly one statement, and that statement is a query
 *       ({@code SELECT}, {@code WITH ... SELECT}, {@code VALUES}, {@code TABLE});</li>
 *   <li>its tokens (comments and string contents excluded) hold no write or DDL keyword, no
 *       {@code INTO}, no locking clause ({@code FOR UPDATE}, {@code FOR SHARE}, ...), no
 *       {@code NEXT VALUE FOR}, no call of a function that changes state, runs SQL given as
 *       text, reads server files, signals other sessions or reveals the catalog, and no cast to
 *       a catalog type ({@code regclass} and friends);</li>
 *   <li>no string literal uses backslash escapes or dollar quoting, so the parser and the
 *       database cannot disagree about where a string ends;</li>
 *   <li>every table it reads is one the caller may see, in the agent's schema.</li>
 * </ul>
 * Everything refused is refused with a message that names no table the caller may not see.
 */
public final class QueryCheck {

  /** The longest statement accepted, in characters. */
  public static final int MAX_SQL_CHARS = 20_000;

  /** How long the parser may take before the statement is refused. */
  static final long PARSE_TIMEOUT_MILLIS = 2_000;

  // JSqlParser logs every parse at INFO through java.util.logging; keep a strong reference so
  // the level sticks.
  private static final Logger PARSER_LOG = Logger.getLogger("net.sf.jsqlparser");

  private static final ExecutorService PARSER_THREADS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "keel-agent-sql-parser");
    t.setDaemon(true);
    return t;
  });

  static {
    PARSER_LOG.setLevel(Level.WARNING);
  }

  // Statement keywords only: words that are also common function or column names (REPLACE,
  // LOAD, CLUSTER) would refuse honest queries, and the parser already refuses non-queries.
  private static final Set<String> WRITE_WORDS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE",
      "UPSERT", "TRUNCATE", "DROP", "ALTER", "CREATE", "GRANT", "REVOKE", "VACUUM", "NOTIFY",
      "LISTEN", "COPY", "CALL", "EXECUTE", "EXEC", "REFRESH", "REINDEX", "CHECKPOINT");

  private static final Set<String> CATALOG_TYPES = Set.of("regclass", "regproc",
      "regprocedure", "regoper", "regoperator", "regtype", "regconfig", "regdictionary",
      "regnamespace", "regrole", "regcollation");

  /** Functions refused by exact name (lower case). */
  private static final Set<String> DENIED_FUNCTIONS = Set.of(
      // state and settings
      "set_config", "current_setting", "nextval", "setval", "currval", "lastval", "setseed",
      "txid_current", "txid_current_if_assigned",
      // SQL given as text
      "ts_stat", "ts_rewrite",
      // H2: files, sessions, catalog, variables
      "file_read", "file_write", "csvread", "csvwrite", "link_schema", "cancel_session",
      "abort_session", "session_id", "set", "disk_space_used", "memory_free", "memory_used",
      "database_path", "transaction_id", "lock_mode", "lock_timeout", "readonly", "signal",
      "autocommit",
      // other engines
      "sleep", "benchmark", "load_file", "sys_exec", "sys_eval", "xp_cmdshell");

  /** Function name prefixes refused (lower case). */
  private static final List<String> DENIED_PREFIXES = List.of("pg_", "lo_", "dblink",
      "db_object_", "to_reg", "has_", "xp_", "sp_", "utl_", "dbms_");

  /** Functions allowed although a prefix above would refuse them. */
  private static final Set<String> ALLOWED_FUNCTIONS = Set.of("pg_sleep", "pg_typeof");

  private final Identifiers identifiers;
  private final String schema;

  /**
   * Creates the check for a database.
   *
   * @param schema the one schema the agent exposes, as the database stores its name
   */
  public QueryCheck(Identifiers identifiers, String schema) {
    this.identifiers = identifiers;
    this.schema = schema;
  }

  /**
   * Checks {@code sql} for a caller who may see {@code visibleTables} (database names), of
   * which {@code restrictedTables} hide some columns.
   *
   * @throws QueryRefusedException saying why the statement will not run
   */
  public CheckedQuery check(String sql, Set<String> visibleTables, Set<String> restrictedTables) {
    if (sql == null || sql.isBlank()) {
      throw new QueryRefusedException("The query is empty");
    }
    if (sql.length() > MAX_SQL_CHARS) {
      throw new QueryRefusedException("The query is longer than " + MAX_SQL_CHARS
          + " characters");
    }
    List<SqlTokens.Tok> tokens = SqlTokens.of(sql);
    String text = withoutTrailingSemicolons(sql, tokens);
    tokens = tokens.subList(0, count(tokens, text.length()));
    if (tokens.isEmpty()) {
      throw new QueryRefusedException("The query is empty");
    }
    int parameters = checkTokens(tokens);
    Statement statement = parse(text);
    if (!(statement instanceof Select)) {
      throw new QueryRefusedException("Only queries are allowed (SELECT, WITH ... SELECT, "
          + "VALUES, TABLE); this statement is a "
          + statement.getClass().getSimpleName().toUpperCase(Locale.ROOT));
    }
    TableReferences refs;
    try {
      refs = TableReferences.of(statement, identifiers);
    } catch (RuntimeException e) {
      if (e instanceof QueryRefusedException refused) {
        throw refused;
      }
      throw new QueryRefusedException("The statement could not be analysed");
    }
    Set<String> tables = new LinkedHashSet<>();
    List<CheckedQuery.Narrowed> narrowed = new ArrayList<>();
    for (TableReferences.Ref ref : refs.tables()) {
      String name = resolve(ref, visibleTables);
      tables.add(name);
      if (restrictedTables.contains(name)) {
        narrowed.add(narrowing(text, ref, name));
      }
    }
    narrowed.sort(java.util.Comparator.comparingInt(CheckedQuery.Narrowed::begin));
    for (int i = 1; i < narrowed.size(); i++) {
      if (narrowed.get(i).begin() < narrowed.get(i - 1).end()) {
        throw new QueryRefusedException("The query could not be narrowed to your columns");
      }
    }
    return new CheckedQuery(text, new ArrayList<>(tables), narrowed, parameters);
  }

  /**
   * Locates a mention of a table with hidden columns: the table name and its alias, nothing
   * else (a sample clause, hints or a pivot cannot be narrowed, so they are refused).
   */
  private static CheckedQuery.Narrowed narrowing(String text, TableReferences.Ref ref,
      String name) {
    Node node = ref.table().getASTNode();
    if (node == null || node.jjtGetFirstToken() == null || node.jjtGetLastToken() == null) {
      throw new QueryRefusedException("The table " + name + " has columns you may not see; "
          + "it can be read here only as a plain FROM or JOIN item");
    }
    int begin = node.jjtGetFirstToken().absoluteBegin - 1;
    int end = node.jjtGetLastToken().absoluteEnd - 1;
    if (begin < 0 || end > text.length() || begin >= end) {
      throw new QueryRefusedException("The query could not be narrowed to your columns");
    }
    List<SqlTokens.Tok> span = SqlTokens.of(text.substring(begin, end));
    int parts = ref.parts().size();
    int expected = parts * 2 - 1;
    if (span.size() < expected) {
      throw new QueryRefusedException("The query could not be narrowed to your columns");
    }
    for (int i = 0; i < expected; i++) {
      boolean dot = i % 2 == 1;
      if (dot != span.get(i).is(".")) {
        throw new QueryRefusedException("The query could not be narrowed to your columns");
      }
    }
    List<SqlTokens.Tok> rest = span.subList(expected, span.size());
    if (!rest.isEmpty() && rest.get(0).isWord() && rest.get(0).upper().equals("AS")) {
      rest = rest.subList(1, rest.size());
    }
    if (rest.size() > 1 || (rest.size() == 1 && !rest.get(0).isWord()
        && !rest.get(0).isQuotedIdentifier())) {
      throw new QueryRefusedException("The table " + name + " has columns you may not see; "
          + "it can be read here only as a plain FROM or JOIN item");
    }
    String alias = rest.isEmpty() ? span.get(expected - 1).image() : rest.get(0).image();
    return new CheckedQuery.Narrowed(name, begin, end, alias);
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

  private static String withoutTrailingSemicolons(String sql, List<SqlTokens.Tok> tokens) {
    int end = tokens.size();
    while (end > 0 && tokens.get(end - 1).is(";")) {
      end--;
    }
    for (int i = 0; i < end; i++) {
      if (tokens.get(i).is(";")) {
        throw new QueryRefusedException("Only one statement at a time is allowed");
      }
    }
    if (end == tokens.size()) {
      return sql;
    }
    return sql.substring(0, tokens.get(end).begin());
  }

  private static int count(List<SqlTokens.Tok> tokens, int textLength) {
    int n = 0;
    while (n < tokens.size() && tokens.get(n).begin() < textLength) {
      n++;
    }
    return n;
  }

  /** Runs the word checks; returns the number of {@code ?} parameters. */
  private static int checkTokens(List<SqlTokens.Tok> tokens) {
    int parameters = 0;
    for (int i = 0; i < tokens.size(); i++) {
      SqlTokens.Tok t = tokens.get(i);
      SqlTokens.Tok next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      if (t.isString() && t.image().indexOf('\\') >= 0) {
        throw new QueryRefusedException("String literals with backslashes are not accepted; "
            + "pass such values as parameters");
      }
      if (t.isWord() && t.upper().equals("U") && next != null && next.is("&")) {
        throw new QueryRefusedException("Unicode-escaped string literals (U&'...') are not "
            + "accepted; pass such values as parameters");
      }
      if (t.isDollarQuoted()) {
        throw new QueryRefusedException("Dollar-quoted strings are not accepted; use single "
            + "quotes or parameters");
      }
      if (t.is("?")) {
        parameters++;
      }
      if (t.image().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ").startsWith("NEXT VALUE")) {
        // the lexer reads NEXT VALUE FOR as one token
        throw new QueryRefusedException("NEXT VALUE FOR is not allowed: it advances a "
            + "sequence");
      }
      if (t.isWord()) {
        String word = t.upper();
        if (WRITE_WORDS.contains(word)) {
          throw new QueryRefusedException("Only read-only queries are allowed; the statement "
              + "contains " + word);
        }
        if (word.equals("INTO")) {
          throw new QueryRefusedException("SELECT ... INTO is not allowed: it writes");
        }
        if (word.equals("FOR") && next != null && next.isWord()
            && Set.of("UPDATE", "SHARE", "NO", "KEY").contains(next.upper())) {
          throw new QueryRefusedException("Locking clauses (FOR UPDATE, FOR SHARE) are not "
              + "allowed");
        }
        if (word.equals("NEXT") && next != null && next.isWord()
            && next.upper().equals("VALUE")) {
          throw new QueryRefusedException("NEXT VALUE FOR is not allowed: it advances a "
              + "sequence");
        }
        if (CATALOG_TYPES.contains(word.toLowerCase(Locale.ROOT))) {
          throw new QueryRefusedException("Casts to catalog types such as regclass are not "
              + "allowed");
        }
      }
      if ((t.isWord() || t.isQuotedIdentifier()) && next != null && next.is("(")) {
        String function = t.isQuotedIdentifier()
            ? t.image().substring(1, t.image().length() - 1).toLowerCase(Locale.ROOT)
            : t.image().toLowerCase(Locale.ROOT);
        if (deniedFunction(function)) {
          throw new QueryRefusedException("The function " + function + " is not allowed: it "
              + "can change state, run other SQL, read server files or reveal the catalog");
        }
      }
    }
    return parameters;
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
      throw new QueryRefusedException("The statement could not be parsed as one SQL query"
          + reason(e));
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
