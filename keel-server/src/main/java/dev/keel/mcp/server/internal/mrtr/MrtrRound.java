package dev.keel.mcp.server.internal.mrtr;

import dev.keel.mcp.core.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One attempt of a multi-round-trip request: the answers it may use (sealed earlier answers plus
 * this round's {@code inputResponses}) and the ones the handler actually used, which are sealed
 * into the next {@code requestState} if another round is needed.
 */
public final class MrtrRound {

  private final int round;
  private final ObjectNode available;
  private final ObjectNode consumed = McpJson.object();

  /**
   * Creates a round.
   *
   * @param round 1 for a first attempt, then one more per retry
   * @param available the answers by key
   */
  public MrtrRound(int round, ObjectNode available) {
    this.round = round;
    this.available = available;
  }

  /** Returns the number of this round. */
  public int round() {
    return round;
  }

  /** Returns the answer under {@code key}, or null; a returned answer counts as used. */
  public JsonNode answer(String key) {
    JsonNode answer = available.get(key);
    if (answer != null) {
      consumed.set(key, answer);
    }
    return answer;
  }

  /** Returns the answers the handler used in this attempt. */
  public ObjectNode consumed() {
    return consumed;
  }
}
