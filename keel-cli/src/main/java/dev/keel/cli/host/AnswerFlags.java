package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * Answers the server's elicitation forms from {@code --answer NAME=VALUE} flags, for scripts:
 * each field takes the value named for it (converted to the field's type) or, failing that, the
 * form's default. A form with a required field that neither gives is cancelled, never guessed;
 * so is a value that does not fit its field. Every form asked is shown on stderr.
 *
 * <p>{@link #yes} is {@code keel call --yes}: the same, and a yes/no field that neither an
 * answer nor a default fills is answered yes (an approval such as the database agent's), and a
 * URL the server wants opened is printed and accepted without waiting.
 *
 * <pre>{@code
 * McpClient.builder(transport).elicitation(new AnswerFlags(List.of("username=ada"), System.err));
 * }</pre>
 */
public final class AnswerFlags implements ElicitationHandler {

  private final Map<String, String> answers = new LinkedHashMap<>();
  private final PrintStream err;
  private final boolean yes;

  /**
   * Returns the handler of {@code --yes}: it accepts every form, with these answers, the
   * defaults, and yes for yes/no fields left open.
   *
   * @throws IllegalArgumentException when a flag has no {@code =} or no name
   */
  public static AnswerFlags yes(List<String> flags, PrintStream err) {
    return new AnswerFlags(flags, err, true);
  }

  /**
   * Creates the handler.
   *
   * @param flags the {@code NAME=VALUE} texts, in order (a later one for a name wins)
   * @param err where the forms and what was answered are shown
   * @throws IllegalArgumentException when a flag has no {@code =} or no name
   */
  public AnswerFlags(List<String> flags, PrintStream err) {
    this(flags, err, false);
  }

  private AnswerFlags(List<String> flags, PrintStream err, boolean yes) {
    this.yes = yes;
    for (String flag : flags) {
      int eq = flag.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--answer must look like NAME=VALUE: " + flag);
      }
      answers.put(flag.substring(0, eq), flag.substring(eq + 1));
    }
    this.err = err;
  }

  @Override
  public boolean supportsUrlMode() {
    return yes;
  }

  @Override
  public ElicitResult elicit(ElicitRequest request) {
    if (request.isUrlMode()) {
      // only declared with --yes: the person asked for no questions, so the URL is theirs to open
      err.println("keel: the server asks you to open this URL: "
          + TerminalText.firstLine(request.url(), 2000));
      err.println("keel: " + TerminalText.firstLine(request.message(), 200)
          + " (accepted: --yes)");
      return new ElicitResult(ElicitResult.Action.ACCEPT, null, null);
    }
    err.println("keel: the server asks: " + TerminalText.firstLine(request.message(), 200));
    ObjectNode content = McpJson.object();
    for (FormFields.Field field : FormFields.of(request.requestedSchema())) {
      String given = answers.get(field.name());
      if (given == null && yes && field.fallback() == null && field.type().equals("boolean")
          && field.choices().isEmpty()) {
        given = "true";
      }
      if (given == null) {
        if (field.required() && field.fallback() == null) {
          err.println("keel: no --answer for the required field "
              + TerminalText.firstLine(field.name(), 60) + "; the form is cancelled");
          return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
        }
        continue; // the default, if any, is filled in by the client
      }
      try {
        content.set(field.name(), FormFields.value(field, given));
      } catch (IllegalArgumentException e) {
        err.println("keel: --answer " + TerminalText.firstLine(e.getMessage(), 200)
            + "; the form is cancelled");
        return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
      }
    }
    err.println("keel: answered " + (yes ? "yes (--yes)" : "from --answer") + ": "
        + String.join(", ", content.propertyNames()));
    return new ElicitResult(ElicitResult.Action.ACCEPT, content, null);
  }
}
