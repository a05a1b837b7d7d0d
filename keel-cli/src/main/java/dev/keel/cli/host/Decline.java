package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import java.io.PrintStream;

/**
 * {@code keel call --no}: declines every elicitation, form or URL, and shows on stderr what was
 * declined. Declaring the capability and saying no is not the same as not declaring it: the
 * server learns the person refused, and a tool behind an approval ends as "not approved".
 *
 * <pre>{@code
 * McpClient.builder(transport).elicitation(new Decline(System.err));
 * }</pre>
 */
public final class Decline implements ElicitationHandler {

  private final PrintStream err;

  /** Shows each declined question on {@code err}. */
  public Decline(PrintStream err) {
    this.err = err;
  }

  @Override
  public boolean supportsUrlMode() {
    return true;
  }

  @Override
  public ElicitResult elicit(ElicitRequest request) {
    err.println("keel: the server asks: " + TerminalText.firstLine(request.message(), 200)
        + (request.isUrlMode() ? " (open " + TerminalText.firstLine(request.url(), 500) + ")"
            : ""));
    err.println("keel: declined (--no)");
    return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
  }
}
