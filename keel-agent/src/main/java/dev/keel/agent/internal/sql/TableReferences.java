package dev.keel.agent.internal.sql;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.parser.Node;
import net.sf.jsqlparser.parser.Token;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * Every table a parsed statement reads, with the names of its WITH queries resolved by scope.
 *
 * <p>JSqlParser's own {@code TablesNamesFinder} is not enough here: it skips some clauses
 * (subqueries in ORDER BY or GROUP BY) and drops every name that a WITH query or an alias
 * anywhere in the statement carries, so {@code WITH secret AS (SELECT * FROM secret) ...} would
 * hide a real table. This walk instead visits every field of every syntax node, so no
 * {@code Table} node is missed whatever clause holds it, and it resolves a name to a WITH query
 * only where that query is in scope: in later siblings and the body of its own statement, and
 * (with RECURSIVE) in its own list. A column's table qualifier and {@code t.*} name an alias or
 * a table already in FROM, so they are not references of their own.
 */
public final class TableReferences {

  /**
   * A table reference as written.
   *
   * @param parts the name parts, outermost first ({@code schema}, {@code table})
   * @param table the syntax node, whose parser node locates it in the text
   * @param withQuery true when the name is that of a WITH query in scope, not a real table
   */
  public record Ref(List<String> parts, Table table, boolean withQuery) {
    /** Returns the last part: the table name as written. */
    public String name() {
      return parts.get(parts.size() - 1);
    }
  }

  /**
   * How deep the walk goes before it refuses the statement as too complex: a syntax tree this
   * deep (a chain of a thousand ANDs) is no honest query, and the walk must never run out of
   * stack.
   */
  static final int MAX_DEPTH = 1_000;

  private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

  private final Identifiers identifiers;
  private final Deque<Set<String>> scopes = new ArrayDeque<>();
  private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
  private final List<Ref> tables = new ArrayList<>();
  private final List<Ref> withQueries = new ArrayList<>();
  private final Set<String> withNames = new HashSet<>();
  private int depth;

  private TableReferences(Identifiers identifiers) {
    this.identifiers = identifiers;
  }

  /** Walks {@code statement}. */
  public static TableReferences of(Statement statement, Identifiers identifiers) {
    TableReferences refs = new TableReferences(identifiers);
    refs.walk(statement);
    return refs;
  }

  /** Returns the references to real tables (not to WITH queries in scope). */
  public List<Ref> tables() {
    return List.copyOf(tables);
  }

  /** Returns the references to WITH queries in scope. */
  public List<Ref> withQueryReferences() {
    return List.copyOf(withQueries);
  }

  /** Returns the names of every WITH query the statement defines, as the database stores them. */
  public Set<String> withQueryNames() {
    return Set.copyOf(withNames);
  }

  private void walk(Object node) {
    if (node == null) {
      return;
    }
    if (++depth > MAX_DEPTH) {
      throw new StatementTooDeepException();
    }
    try {
      visit(node);
    } finally {
      depth--;
    }
  }

  private void visit(Object node) {
    if (node instanceof Collection<?> items) {
      for (Object item : items) {
        walk(item);
      }
      return;
    }
    if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> {
        walk(k);
        walk(v);
      });
      return;
    }
    if (node instanceof Object[] array) {
      for (Object item : array) {
        walk(item);
      }
      return;
    }
    if (!node.getClass().getName().startsWith("net.sf.jsqlparser.")
        || node instanceof Node || node instanceof Token || node instanceof Enum<?>
        || !seen.add(node)) {
      return;
    }
    if (node instanceof Table table) {
      reference(table);
      walkFields(table, null);
    } else if (node instanceof Column column) {
      walkFields(column, column.getTable());
    } else if (node instanceof AllTableColumns all) {
      walkFields(all, all.getTable());
    } else if (node instanceof Select select && select.getWithItemsList() != null
        && !select.getWithItemsList().isEmpty()) {
      walkWith(select);
    } else {
      walkFields(node, null);
    }
  }

  private void walkWith(Select select) {
    List<WithItem<?>> items = select.getWithItemsList();
    Set<String> scope = new HashSet<>();
    scopes.push(scope);
    try {
      boolean recursive = items.stream().anyMatch(WithItem::isRecursive);
      for (WithItem<?> item : items) {
        if (item.getAlias() == null || item.getAlias().getName() == null) {
          throw new QueryRefusedException("The statement could not be analysed");
        }
        withNames.add(identifiers.normalize(item.getAlias().getName()));
      }
      if (recursive) {
        for (WithItem<?> item : items) {
          scope.add(identifiers.normalize(item.getAlias().getName()));
        }
      }
      for (WithItem<?> item : items) {
        // a WITH query sees the ones before it (all of them with RECURSIVE), never itself
        // unless RECURSIVE: its own name there is the real table
        walk(item);
        scope.add(identifiers.normalize(item.getAlias().getName()));
      }
      walkFields(select, items);
    } finally {
      scopes.pop();
    }
  }

  private void reference(Table table) {
    List<String> parts = table.getNameParts() == null ? List.of()
        : table.getNameParts().stream().filter(p -> p != null && !p.isEmpty()).toList();
    if (parts.isEmpty()) {
      return;
    }
    List<String> outerFirst = new ArrayList<>(parts);
    Collections.reverse(outerFirst);
    if (outerFirst.size() == 1) {
      String name = identifiers.normalize(outerFirst.get(0));
      for (Set<String> scope : scopes) {
        if (scope.contains(name)) {
          withQueries.add(new Ref(List.copyOf(outerFirst), table, true));
          return;
        }
      }
    }
    tables.add(new Ref(List.copyOf(outerFirst), table, false));
  }

  /** Walks every instance field of {@code node} except the one holding {@code skip}. */
  private void walkFields(Object node, Object skip) {
    for (Field field : fields(node.getClass())) {
      Object value;
      try {
        value = field.get(node);
      } catch (IllegalAccessException e) {
        throw new QueryRefusedException("The statement could not be analysed");
      }
      if (value != null && value != skip) {
        walk(value);
      }
    }
  }

  private static List<Field> fields(Class<?> type) {
    return FIELDS.computeIfAbsent(type, t -> {
      List<Field> result = new ArrayList<>();
      for (Class<?> c = t; c != null && c.getName().startsWith("net.sf.jsqlparser.");
          c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic()
              || f.getType().isPrimitive() || f.getType() == String.class) {
            continue;
          }
          f.setAccessible(true);
          result.add(f);
        }
      }
      return List.copyOf(result);
    });
  }
}
