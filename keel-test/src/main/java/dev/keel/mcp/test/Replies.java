package dev.keel.mcp.test;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Role;
import dev.keel.mcp.core.schema.TextContent;
import java.util.List;

/**
 * Ready-made answers for a {@link McpTestClient} to give the server's questions, scripted in the
 * order they will be asked (as a {@code MockWebServer} is given its responses).
 *
 * <pre>{@code
 * McpTestClient client = McpTestClient.builder(server)
 *     .elicitation(Replies.accept("{\"name\":\"Ada\"}"), Replies.decline())
 *     .sampling(Replies.sample("It is sunny."))
 *     .connect();
 * }</pre>
 */
public final class Replies {

  private Replies() {}

  /** Returns an elicitation answer that accepts with this content (a JSON object). */
  public static ElicitResult accept(String contentJson) {
    return new ElicitResult(ElicitResult.Action.ACCEPT,
        McpJson.standard().parseObject(contentJson), null);
  }

  /** Returns an elicitation answer that declines. */
  public static ElicitResult decline() {
    return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
  }

  /** Returns an elicitation answer that cancels (the user dismissed the question). */
  public static ElicitResult cancel() {
    return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
  }

  /** Returns a sampling answer: the assistant says {@code text}, as model {@code test-model}. */
  public static CreateMessageResult sample(String text) {
    return new CreateMessageResult(Role.ASSISTANT,
        List.of(new TextContent(text, null, null)), "test-model", "endTurn", null);
  }
}
