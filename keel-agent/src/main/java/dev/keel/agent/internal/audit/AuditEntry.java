package dev.keel.agent.internal.audit;

/**
 * One decision of the agent, as the audit trail writes it.
 *
 * @param principal the caller's id
 * @param fingerprint the caller's fingerprint (stable per credential, never the credential)
 * @param source the source's name
 * @param tool the tool (or resource or prompt) that asked
 * @param statement what was asked: the caller's SQL, or the structured call's description
 * @param outcome what the agent decided
 * @param reason why, for a refusal or failure; null otherwise
 * @param millis how long it took
 * @param rows rows returned or changed, or -1 when none were
 */
public record AuditEntry(String principal, String fingerprint, String source, String tool,
    String statement, Outcome outcome, String reason, long millis, long rows) {

  /** What the agent decided about a statement. */
  public enum Outcome {
    /** It ran and its whole result was returned. */
    RAN("ran"),
    /** It ran and its result was cut at a limit. */
    TRUNCATED("truncated"),
    /** It was refused before it reached the database. */
    REFUSED("refused"),
    /** It failed in the database. */
    FAILED("failed"),
    /** It was stopped by the statement timeout. */
    TIMED_OUT("timed out"),
    /** The caller cancelled it. */
    CANCELLED("cancelled"),
    /** A person approved a write, and it ran. */
    WRITE_APPROVED("write approved"),
    /** A person declined a write, or could not be asked. */
    WRITE_DECLINED("write declined");

    private final String word;

    Outcome(String word) {
      this.word = word;
    }

    /** Returns the word written to the file. */
    public String word() {
      return word;
    }
  }
}
