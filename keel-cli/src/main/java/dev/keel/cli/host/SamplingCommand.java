package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Answers the server's sampling requests with a command the user chose
 * ({@code --sampling-command}), which stands in for the model: the {@code CreateMessageRequest}
 * goes to its stdin as one JSON object, and what it prints on stdout (UTF-8, surrounding white
 * space removed) is the reply text. Its stderr passes through to keel's. It runs as an argument
 * list, never through a shell. A non-zero exit, empty output, more than 1 MiB of output or no
 * answer within the timeout refuses the request with the error the spec gives a user's
 * rejection ({@code -1}), and says why on stderr; a command still running then is killed.
 *
 * <pre>{@code
 * McpClient.builder(transport).sampling(new SamplingCommand(
 *     SamplingCommand.words("llm -m mini"), Duration.ofSeconds(60), System.err));
 * }</pre>
 */
public final class SamplingCommand implements SamplingHandler {

  private static final int MAX_OUTPUT = 1 << 20;

  private final List<String> command;
  private final Duration timeout;
  private final PrintStream err;

  /**
   * Creates the handler.
   *
   * @param command the program and its arguments
   * @param timeout how long the command may take per request
   * @param err where refusals are explained
   */
  public SamplingCommand(List<String> command, Duration timeout, PrintStream err) {
    if (command.isEmpty()) {
      throw new IllegalArgumentException("--sampling-command is empty");
    }
    this.command = List.copyOf(command);
    this.timeout = timeout;
    this.err = err;
  }

  /**
   * Splits a command line into words the way a shell would split simple words, without
   * running one: white space separates words, single quotes keep everything literally, double
   * quotes keep white space, and a backslash outside single quotes takes the next character
   * literally. Nothing is expanded ({@code $}, {@code *}, {@code ~} stay as they are).
   *
   * @throws IllegalArgumentException on an unclosed quote or a trailing backslash
   */
  public static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote == '\'') {
        if (c == '\'') {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\\') {
        if (i + 1 == line.length()) {
          throw new IllegalArgumentException("--sampling-command ends with a backslash");
        }
        word.append(line.charAt(++i));
        inWord = true;
      } else if (quote == '"') {
        if (c == '"') {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (quote != 0) {
      throw new IllegalArgumentException("--sampling-command has an unclosed " + quote);
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }

  @Override
  public CreateMessageResult sample(CreateMessageRequest request) throws Exception {
    String name = TerminalText.firstLine(Path.of(command.get(0)).getFileName().toString(), 60);
    Process process;
    try {
      process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
    } catch (IOException e) {
      throw refused("the sampling command " + name + " could not start: "
          + TerminalText.firstLine(e.getMessage(), 200));
    }
    try {
      // Its stdout is read and its stdin written on threads of their own, never the common
      // pool's: with one pool thread (two cores) a blocking read there left the write queued
      // behind it, and a command waiting for its input never answered (JDK 25 runs it there).
      // Writing on this thread instead could block on a full pipe before the timeout starts.
      CompletableFuture<byte[]> output = new CompletableFuture<>();
      daemon("keel-sampling-stdout", () -> {
        try {
          output.complete(read(process.getInputStream()));
        } catch (RuntimeException e) {
          output.completeExceptionally(e);
        }
      });
      byte[] input = McpJson.standard().write(request).getBytes(StandardCharsets.UTF_8);
      daemon("keel-sampling-stdin", () -> {
        try (OutputStream in = process.getOutputStream()) {
          in.write(input);
        } catch (IOException e) {
          // the command need not read its input; what it prints still counts
        }
      });
      byte[] out;
      try {
        out = output.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw refused("the sampling command " + name + " gave no answer within "
            + timeout.toSeconds() + " s");
      } catch (ExecutionException e) {
        throw refused("the sampling command " + name + " " + TerminalText.firstLine(
            e.getCause().getMessage(), 200));
      }
      if (!process.waitFor(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
        throw refused("the sampling command " + name + " did not exit within "
            + timeout.toSeconds() + " s");
      }
      if (process.exitValue() != 0) {
        throw refused("the sampling command " + name + " exited with status "
            + process.exitValue());
      }
      String reply = new String(out, StandardCharsets.UTF_8).strip();
      if (reply.isEmpty()) {
        throw refused("the sampling command " + name + " printed nothing");
      }
      return new CreateMessageResult(Role.ASSISTANT, List.of(Content.text(reply)),
          "keel-cli-command:" + name, "endTurn", null);
    } finally {
      process.destroyForcibly();
    }
  }

  private static void daemon(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    t.start();
  }

  private static byte[] read(InputStream in) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try (in) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        if (out.size() + n > MAX_OUTPUT) {
          throw new IllegalStateException("printed more than " + MAX_OUTPUT + " bytes");
        }
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      throw new IllegalStateException("output could not be read: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  private McpException refused(String why) {
    err.println("keel: " + why + "; the sampling request is refused");
    return new McpException(TerminalQuestions.USER_REJECTED, "User rejected sampling request");
  }
}
