package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Root;
import java.util.List;

/** The client's answers to {@link InputRequests}, by key. */
public interface InputAnswers {

  /**
   * Returns the answer to an elicitation.
   *
   * @throws IllegalArgumentException when no elicitation was asked under {@code key}
   */
  ElicitResult elicitation(String key);

  /**
   * Returns the answer to a sampling request.
   *
   * @throws IllegalArgumentException when no sampling was asked under {@code key}
   */
  CreateMessageResult sampling(String key);

  /**
   * Returns the roots answered under {@code key}.
   *
   * @throws IllegalArgumentException when no roots were asked under {@code key}
   */
  List<Root> roots(String key);
}
