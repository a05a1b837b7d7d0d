package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.server.RequestContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Human approval through elicitation, failing closed: only an explicit accept whose
 * {@code approve} field is {@code true} approves. No capability, no stream to ask on, a timeout,
 * an error reply, a decline, a cancel or any other answer refuses. The reply is the client's
 * answer to this request's own elicitation, which only its session can deliver, once.
 */
public final class ApprovalGate {

  /** What came of asking. */
  public enum Outcome {
    /** The user explicitly approved. */
    APPROVED,
    /** The user declined, cancelled, or answered anything but an approval. */
    DECLINED,
    /** Nobody could be asked, or no answer came in time. */
    UNAVAILABLE
  }

  private static final Logger LOG = LoggerFactory.getLogger(ApprovalGate.class);

  private ApprovalGate() {}

  /**
   * Asks the user to approve.
   *
   * @param preview what the user is asked about, shown by clients that render {@code _meta}; may
   *     be null
   * @throws RequestCancelledException when the request itself was cancelled meanwhile
   */
  public static Outcome ask(RequestContext ctx, String message, JsonNode preview) {
    ObjectNode schema = McpJson.object();
    schema.put("type", "object");
    ObjectNode approve = schema.putObject("properties").putObject("approve");
    approve.put("type", "boolean");
    approve.put("title", "Approve");
    approve.put("description", "Set to true to allow this action");
    schema.putArray("required").add("approve");
    ObjectNode meta = McpJson.object();
    if (preview != null) {
      meta.set("dev.keel/preview", preview);
    }
    ElicitRequest request = new ElicitRequest(null, message, schema, null, null,
        meta.isEmpty() ? null : meta);
    ElicitResult result;
    try {
      // A fresh key per question, the same on every run of the handler (stateless retries).
      String key = ctx instanceof RealRequestContext real ? real.autoKey("approval") : "approval";
      result = ctx.elicit(key, request);
    } catch (RequestCancelledException e) {
      throw e;
    } catch (McpException | RequestTimeoutException | ConnectionClosedException
        | IllegalStateException e) {
      LOG.info("approval unavailable for {}: {}", ctx.method(), e.getMessage());
      return Outcome.UNAVAILABLE;
    }
    return approved(result) ? Outcome.APPROVED : Outcome.DECLINED;
  }

  static boolean approved(ElicitResult result) {
    if (result == null || result.action() != ElicitResult.Action.ACCEPT
        || result.content() == null) {
      return false;
    }
    JsonNode approve = result.content().get("approve");
    return approve != null && approve.isBoolean() && approve.booleanValue();
  }
}
