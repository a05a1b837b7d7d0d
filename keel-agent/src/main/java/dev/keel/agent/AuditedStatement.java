package dev.keel.agent;

import java.time.Instant;

/**
 * One recent decision of the agent's audit trail, kept in memory for an operator's view
 * ({@link DatabaseAgent#recentStatements()}).
 *
 * @param time when it was decided
 * @param principal the caller's id
 * @param source the source's name
 * @param tool the tool (or resource or prompt) that asked
 * @param statement the SQL or the structured call's description, cut at
 *     {@link DatabaseAgent#MAX_RECENT_STATEMENT_CHARS} characters with an ellipsis
 * @param outcome the audit trail's word for what happened ({@code ran}, {@code refused},
 *     {@code failed}, {@code timed out}, {@code write declined}, …)
 * @param reason why it was refused or failed, or null
 * @param refused true when the agent refused it (a refusal, or a declined write): what an
 *     operator looks for first
 */
public record AuditedStatement(Instant time, String principal, String source, String tool,
    String statement, String outcome, String reason, boolean refused) {}
