package dev.keel.mcp.client;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP over a subprocess's stdin and stdout: one JSON-RPC message per line.
 *
 * <p>The command is an argument list and is never given to a shell. The server's stderr is
 * drained (capped lines, logged at debug, escaped) so a chatty server cannot block. Lines that
 * are not JSON-RPC are ignored. Closing closes stdin, waits, then sends TERM, then KILL.
 *
 * <pre>{@code
 * ClientTransport stdio = StdioTransport.builder(List.of("./keel", "fixtures", "--stdio")).build();
 * }</pre>
 */
public final class StdioTransport implements ClientTransport {

  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final int MAX_STDERR_LINE = 64 * 1024;
  /** No per-request streams (cancellation is a notification), no version header. */
  private static final Capabilities CAPABILITIES = new Capabilities(false, false, true, false);

  private final List<String> command;
  private final Map<String, String> environment;
  private final File directory;
  private final int maxLineBytes;
  private final JsonRpcCodec codec = new JsonRpcCodec(McpJson.standard());
  private final ReentrantLock writeLock = new ReentrantLock();
  private volatile Process process;
  private volatile OutputStream stdin;
  private volatile Receiver receiver;
  private volatile long epoch;
  private volatile boolean hasSession;
  private volatile boolean closed;

  private StdioTransport(Builder b) {
    this.command = List.copyOf(b.command);
    this.environment = Map.copyOf(b.environment);
    this.directory = b.directory;
    this.maxLineBytes = b.maxLineBytes;
  }

  /** Returns a builder for a server started with this argument list. */
  public static Builder builder(List<String> command) {
    return new Builder(command);
  }

  @Override
  public void start(Receiver target) {
    this.receiver = Objects.requireNonNull(target, "receiver");
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(environment);
    if (directory != null) {
      pb.directory(directory);
    }
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new TransportException("cannot start " + Text.safe(command.get(0)) + ": "
          + Text.safe(String.valueOf(e.getMessage())), 0, e);
    }
    stdin = process.getOutputStream();
    daemon("keel-stdio-out", this::readStdout);
    daemon("keel-stdio-err", this::drainStderr);
  }

  private static void daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  @Override
  public Exchange send(JsonRpcMessage message, SendOptions options) {
    byte[] bytes = codec.encode(message);
    writeLock.lock();
    try {
      // The pipe is the session: checked where it is written, under the write lock.
      checkWrite(epoch);
      if (closed || stdin == null) {
        throw new TransportException("the server process is not running");
      }
      stdin.write(bytes);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new TransportException("cannot write to the server process: "
          + Text.safe(String.valueOf(e.getMessage())), 0, e);
    } finally {
      writeLock.unlock();
    }
    return Exchange.NONE;
  }

  @Override
  public Capabilities capabilities() {
    return CAPABILITIES;
  }

  /** A legacy session now lives in this process: its end moves the epoch. */
  @Override
  public void sessionStarted(String protocolVersion) {
    hasSession = true;
  }

  private void readStdout() {
    InputStream out = process.getInputStream();
    TransportException why = new TransportException("the server process ended");
    try {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      byte[] buffer = new byte[8192];
      int n;
      while ((n = out.read(buffer)) > 0) {
        for (int i = 0; i < n; i++) {
          b = buffer[i];
          if (b == '\n') {
            deliver(line.toByteArray());
            line.reset();
          } else {
            line.write(b);
            if (line.size() > maxLineBytes) {
              // the message it carries is lost, and whoever waits for it would wait in vain:
              // the connection fails instead, and nothing more is read
              why = new TransportException("the server sent a line over " + maxLineBytes
                  + " bytes");
              LOG.warn("{}; the connection is closed", why.getMessage());
              return;
            }
          }
        }
      }
    } catch (IOException e) {
      LOG.debug("server stdout closed: {}", Text.safe(String.valueOf(e.getMessage())));
    } finally {
      ended(why);
    }
  }

  private void deliver(byte[] bytes) {
    if (bytes.length == 0 || (bytes.length == 1 && bytes[0] == '\r')) {
      return;
    }
    try {
      receiver.receive(codec.decode(bytes));
    } catch (InvalidMessageException e) {
      LOG.debug("ignored a line that is not JSON-RPC from the server");
    } catch (RuntimeException e) {
      LOG.warn("a message from the server could not be handled", e);
    }
  }

  private void drainStderr() {
    InputStream err = process.getErrorStream();
    try {
      byte[] buffer = new byte[8192];
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int n;
      while ((n = err.read(buffer)) > 0) {
        for (int i = 0; i < n; i++) {
          if (buffer[i] == '\n') {
            LOG.debug("server stderr: {}", Text.safe(line.toString(
                java.nio.charset.StandardCharsets.UTF_8)));
            line.reset();
          } else if (line.size() < MAX_STDERR_LINE) {
            line.write(buffer[i]);
          }
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
  }

  private void ended(RuntimeException why) {
    if (hasSession) {
      hasSession = false;
      epoch++;
    }
    Receiver target = receiver;
    if (target != null) {
      target.closed(why);
    }
  }

  @Override
  public long sessionEpoch() {
    return epoch;
  }

  @Override
  public String sessionId() {
    return null;
  }

  /** Returns the server process, or null before start. */
  public Process process() {
    return process;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Process p = process;
    if (p == null) {
      return;
    }
    writeLock.lock();
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already closed
    } finally {
      writeLock.unlock();
    }
    // Closed by an interrupted thread (Ctrl-C) too: an interrupt still pending would turn the
    // server's chance to finish into an instant KILL, so it is set aside until the end.
    boolean interrupted = Thread.interrupted();
    try {
      if (!p.waitFor(2, TimeUnit.SECONDS)) {
        p.destroy();
        if (!p.waitFor(2, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(2, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (hasSession) {
      hasSession = false;
      epoch++;
    }
  }

  /** Builds a {@link StdioTransport}. */
  public static final class Builder {
    private final List<String> command;
    private final Map<String, String> environment = new java.util.LinkedHashMap<>();
    private File directory;
    private int maxLineBytes = 16 * 1024 * 1024;

    private Builder(List<String> command) {
      Objects.requireNonNull(command, "command");
      if (command.isEmpty() || command.get(0).isBlank()) {
        throw new IllegalArgumentException("command must name a program");
      }
      this.command = List.copyOf(command);
    }

    /** Adds an environment variable for the server process. */
    public Builder environment(String name, String value) {
      environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value,
          "value"));
      return this;
    }

    /** Sets the server process's working directory. */
    public Builder directory(File value) {
      this.directory = value;
      return this;
    }

    /** Sets the longest line accepted from the server (default 16 MiB); longer fails it. */
    public Builder maxLineBytes(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxLineBytes must be positive: " + value);
      }
      this.maxLineBytes = value;
      return this;
    }

    /** Returns the transport. */
    public StdioTransport build() {
      return new StdioTransport(this);
    }
  }
}
