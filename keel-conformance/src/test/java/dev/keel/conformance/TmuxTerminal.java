package dev.keel.conformance;

import dev.keel.mcp.redis.DebianPackages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Real pseudo-terminals for CLI tests: a private tmux server (its own socket in a temporary
 * directory, so nothing touches the user's tmux), one detached session of a fixed size per
 * command. A command runs from a script that prints {@code EXIT:N} when it ends and then waits,
 * so the screen can still be read. Keys are typed with {@code send-keys}; the screen is read
 * with {@code capture-pane}. {@link #close()} kills the tmux server and so every command.
 */
final class TmuxTerminal implements AutoCloseable {

  static final Path TMUX = Path.of("/usr/bin/tmux");
  static final int COLUMNS = 150;
  static final int ROWS = 50;

  private final Path dir;
  private final Path socket;
  private int sessions;

  private TmuxTerminal(Path dir) {
    this.dir = dir;
    this.socket = dir.resolve("sock");
  }

  /** Installs tmux when missing and returns a terminal factory using {@code dir}. */
  static TmuxTerminal start(Path dir) throws IOException, InterruptedException {
    DebianPackages.ensure("tmux", TMUX);
    return new TmuxTerminal(dir);
  }

  /**
   * Runs {@code command} (an argument list) in {@code workDir} in a new session at a terminal
   * and returns the session's name. UTF-8 is set so the spinner draws its braille frames.
   */
  String run(Path workDir, List<String> command) throws IOException, InterruptedException {
    String name = "s" + (++sessions);
    StringBuilder script = new StringBuilder("cd ").append(quote(workDir.toString()))
        .append(" || exit 1\n");
    for (String word : command) {
      script.append(quote(word)).append(' ');
    }
    script.append("\necho EXIT:$?\nexec sleep 600\n");
    Path file = dir.resolve(name + ".sh");
    Files.writeString(file, script.toString(), StandardCharsets.UTF_8);
    tmux("new-session", "-d", "-s", name, "-x", Integer.toString(COLUMNS), "-y",
        Integer.toString(ROWS), "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm sh "
            + quote(file.toString()));
    return name;
  }

  /** Types {@code text} and Enter. */
  void type(String session, String text) throws IOException, InterruptedException {
    tmux("send-keys", "-t", session, "-l", text);
    tmux("send-keys", "-t", session, "Enter");
  }

  /** Returns what the terminal shows now, wrapped lines joined. */
  String screen(String session) throws IOException, InterruptedException {
    return tmux("capture-pane", "-p", "-J", "-t", session);
  }

  /** Waits until the screen matches {@code regex} (found anywhere) and returns the screen. */
  String await(String session, String regex, long seconds)
      throws IOException, InterruptedException {
    Pattern pattern = Pattern.compile(regex, Pattern.MULTILINE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    String shown = "";
    while (System.nanoTime() < deadline) {
      shown = screen(session);
      if (pattern.matcher(shown).find()) {
        return shown;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the terminal did not show /" + regex + "/ within " + seconds
        + " s; it shows:\n" + shown);
  }

  private String tmux(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(TMUX.toString(), "-S", socket.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("tmux " + args[0] + " hung");
    }
    if (p.exitValue() != 0) {
      throw new IOException("tmux " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  private static String quote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (Files.exists(socket)) {
      try {
        tmux("kill-server");
      } catch (IOException e) {
        // no server left to kill
      }
    }
  }
}
