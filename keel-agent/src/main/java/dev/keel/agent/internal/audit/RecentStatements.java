package dev.keel.agent.internal.audit;

import dev.keel.agent.AuditedStatement;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The last decisions of the audit trail in memory, for the operator console: a bounded ring,
 * with statements cut short, so it costs the same however long the agent runs.
 */
public final class RecentStatements {

  private final int capacity;
  private final int maxChars;
  private final Deque<AuditedStatement> ring = new ArrayDeque<>();

  /** Keeps the last {@code capacity} decisions, statements cut at {@code maxChars}. */
  public RecentStatements(int capacity, int maxChars) {
    this.capacity = capacity;
    this.maxChars = maxChars;
  }

  void add(Instant at, AuditEntry e) {
    String statement = e.statement();
    if (statement != null && statement.length() > maxChars) {
      statement = statement.substring(0, maxChars) + "…";
    }
    boolean refused = e.outcome() == AuditEntry.Outcome.REFUSED
        || e.outcome() == AuditEntry.Outcome.WRITE_DECLINED;
    AuditedStatement s = new AuditedStatement(at, e.principal(), e.source(), e.tool(),
        statement, e.outcome().word(), e.reason(), refused);
    synchronized (ring) {
      ring.addLast(s);
      if (ring.size() > capacity) {
        ring.removeFirst();
      }
    }
  }

  /** Returns the kept decisions, newest first. */
  public List<AuditedStatement> newestFirst() {
    synchronized (ring) {
      List<AuditedStatement> out = new ArrayList<>(ring.size());
      ring.descendingIterator().forEachRemaining(out::add);
      return out;
    }
  }
}
