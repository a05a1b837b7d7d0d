package dev.keel.agent.internal.audit;

import dev.keel.agent.internal.audit.AuditEntry.Outcome;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.server.RequestContext;
import java.util.function.Supplier;

/**
 * Records a read that is not a tool call (a resource, a prompt's live facts) in the audit
 * trail, so that every statement the agent runs for a caller is on record, whichever door it
 * came through.
 */
public final class Audited {

  private Audited() {}

  /** Runs {@code body} and records its outcome; {@code rows} is -1 when it returns none. */
  public static <T> T run(AuditTrail audit, String source, RequestContext ctx, String what,
      String statement, Supplier<T> body) {
    if (!audit.enabled()) {
      return body.get();
    }
    long started = System.nanoTime();
    Outcome outcome = Outcome.FAILED;
    String reason = null;
    try {
      T value = body.get();
      outcome = Outcome.RAN;
      return value;
    } catch (RequestCancelledException e) {
      outcome = Outcome.CANCELLED;
      throw e;
    } catch (RuntimeException e) {
      reason = e.getMessage();
      throw e;
    } finally {
      audit.record(new AuditEntry(ctx.principal().id(), ctx.principal().fingerprint(), source,
          what, statement, outcome, reason, (System.nanoTime() - started) / 1_000_000, -1));
    }
  }
}
