package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Role;
import dev.keel.mcp.core.schema.SamplingMessage;
import dev.keel.mcp.core.schema.TextContent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Puts the server's questions to the person at the terminal: an elicitation form field by
 * field, a URL the server wants opened (URL-mode elicitation), and a sampling request (the
 * person writes the reply the server asked a model for). The questions are written to stderr
 * and the answers read from stdin, one question at a time even when the server asks several at
 * once. End of input cancels a form and declines a sampling.
 *
 * <p>A field shows its type, whether it is required and its default (taken on an empty line);
 * choices are listed numbered, and a number, the value or its title picks one (several,
 * separated by commas, where the field is a list); a yes/no field takes {@code y} or {@code n}.
 *
 * <pre>{@code
 * TerminalQuestions ask = new TerminalQuestions(
 *     new BufferedReader(new InputStreamReader(System.in)), System.err);
 * McpClient.builder(transport).elicitation(ask).sampling(ask);
 * }</pre>
 */
public final class TerminalQuestions implements ElicitationHandler, SamplingHandler {

  /** The JSON-RPC code the spec gives a user's refusal of a sampling request. */
  static final int USER_REJECTED = -1;
  private static final int TRIES = 3;

  private final BufferedReader in;
  private final PrintStream err;
  private final ReentrantLock oneAtATime = new ReentrantLock();

  /** Asks on {@code err} and reads the answers from {@code in}. */
  public TerminalQuestions(BufferedReader in, PrintStream err) {
    this.in = in;
    this.err = err;
  }

  @Override
  public boolean supportsUrlMode() {
    return true;
  }

  @Override
  public ElicitResult elicit(ElicitRequest request) throws IOException {
    oneAtATime.lock();
    try {
      if (request.isUrlMode()) {
        return url(request);
      }
      err.println("keel: the server asks: " + TerminalText.safe(request.message()));
      String go = ask("Answer it? [y]es, [n]o (decline), [c]ancel: ");
      if (go == null || go.strip().toLowerCase(Locale.ROOT).startsWith("c")) {
        return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
      }
      if (go.strip().toLowerCase(Locale.ROOT).startsWith("n")) {
        return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
      }
      ObjectNode content = McpJson.object();
      for (FormFields.Field field : FormFields.of(request.requestedSchema())) {
        JsonNode value = field(field);
        if (value == MISSING) {
          return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
        }
        if (value != null) {
          content.set(field.name(), value);
        }
      }
      return new ElicitResult(ElicitResult.Action.ACCEPT, content, null);
    } finally {
      oneAtATime.unlock();
    }
  }

  private static final JsonNode MISSING = McpJson.object();

  /**
   * The server wants the person to visit a page (to sign in, to pay): the URL is shown, never
   * opened by keel, and the answer waits until the person says they are done.
   */
  private ElicitResult url(ElicitRequest request) throws IOException {
    err.println("keel: the server asks you to open this URL: " + TerminalText.firstLine(
        request.url(), 2000));
    err.println("  " + TerminalText.safe(request.message()));
    String go = ask("Open it, then continue? [y]es (done), [n]o (decline), [c]ancel: ");
    if (go == null || go.strip().toLowerCase(Locale.ROOT).startsWith("c")) {
      return new ElicitResult(ElicitResult.Action.CANCEL, null, null);
    }
    if (go.strip().toLowerCase(Locale.ROOT).startsWith("n")) {
      return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
    }
    return new ElicitResult(ElicitResult.Action.ACCEPT, null, null);
  }

  private String prompt(FormFields.Field field) {
    if (field.type().equals("boolean") && field.choices().isEmpty()) {
      String yn = field.fallback() == null ? "y/n"
          : field.fallback().asBoolean(false) ? "Y/n" : "y/N";
      return "  " + field.label() + " [" + yn + "]: ";
    }
    return "  " + field.label() + (field.multiple() ? " (numbers or values, comma-separated)"
        : "") + ": ";
  }

  /** One field's value; null to leave it out (its default applies); MISSING to give up. */
  private JsonNode field(FormFields.Field field) throws IOException {
    for (int c = 0; c < field.choices().size(); c++) {
      String value = TerminalText.firstLine(field.choices().get(c), 80);
      String title = TerminalText.firstLine(field.titles().get(c), 80);
      err.println("    " + (c + 1) + ") " + value + (title.equals(value) ? "" : " - " + title));
    }
    for (int i = 0; i < TRIES; i++) {
      String typed = ask(prompt(field));
      if (typed == null) {
        return MISSING;
      }
      if (typed.isEmpty()) {
        if (field.fallback() != null || !field.required()) {
          return null;
        }
        err.println("  " + TerminalText.firstLine(field.name(), 60) + " is required");
        continue;
      }
      try {
        return FormFields.value(field, typed);
      } catch (IllegalArgumentException e) {
        err.println("  " + TerminalText.firstLine(e.getMessage(), 200));
      }
    }
    err.println("keel: no usable answer for " + TerminalText.firstLine(field.name(), 60)
        + "; the form is cancelled");
    return MISSING;
  }

  @Override
  public CreateMessageResult sample(CreateMessageRequest request) throws IOException {
    oneAtATime.lock();
    try {
      err.println("keel: the server asks for a model's reply (sampling); you write it.");
      if (request.systemPrompt() != null) {
        err.println("  system: " + TerminalText.safe(request.systemPrompt()));
      }
      for (SamplingMessage m : request.messages()) {
        err.println("  " + m.role().name().toLowerCase(Locale.ROOT) + ": " + text(m.content()));
      }
      String reply = ask("Reply (one line; empty declines): ");
      if (reply == null || reply.isBlank()) {
        throw new McpException(USER_REJECTED, "User rejected sampling request");
      }
      return new CreateMessageResult(Role.ASSISTANT, List.of(Content.text(reply)),
          "keel-cli-user", "endTurn", null);
    } finally {
      oneAtATime.unlock();
    }
  }

  private static String text(List<Content> content) {
    StringBuilder b = new StringBuilder();
    for (Content c : content) {
      b.append(c instanceof TextContent t ? TerminalText.safe(t.text())
          : "[" + c.getClass().getSimpleName() + "]");
    }
    return b.toString();
  }

  /** Prompts and reads one line; null at the end of input. */
  private String ask(String prompt) throws IOException {
    err.print(prompt);
    err.flush();
    String line = in.readLine();
    if (line == null) {
      err.println();
    }
    return line;
  }
}
