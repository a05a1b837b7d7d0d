package dev.keel.cli;

import dev.keel.mcp.client.InvalidServerResponseException;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Runs one client command: connects, does the work, closes, and turns failures into a message
 * on stderr and an exit status, one per kind of outcome (see the constants; the commands' help
 * and docs/client.md list them). Ctrl-C (or TERM) interrupts the work, which cancels the
 * request at the server; then the session is closed (DELETE), whatever the interrupt.
 */
final class ClientRun {

  /** The work succeeded. */
  static final int OK = 0;
  /** The tool reported an error ({@code isError}), or the call was refused before it left. */
  static final int TOOL_ERROR = 1;
  /** The command line was wrong (picocli's own status). */
  static final int USAGE = 2;
  /** The server could not be reached, or the connection broke. */
  static final int UNREACHABLE = 3;
  /** The server answered with a JSON-RPC error, or broke the protocol. */
  static final int PROTOCOL_ERROR = 4;
  /** No answer within {@code --timeout}; the request was cancelled at the server. */
  static final int TIMED_OUT = 5;
  /** The user cancelled (Ctrl-C, TERM). */
  static final int CANCELLED = 130;

  private ClientRun() {}

  static int run(ClientOptions options, ClientOptions.Target target, PrintStream err,
      ToIntFunction<McpClient> work) {
    return run(options, target, b -> { }, err, work);
  }

  /** Runs the work with the handlers {@code host} registers on the client. */
  static int run(ClientOptions options, ClientOptions.Target target,
      Consumer<McpClient.Builder> host, PrintStream err, ToIntFunction<McpClient> work) {
    Thread worker = Thread.currentThread();
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      if (finished.getCount() > 0) {
        worker.interrupt();
        try {
          // Let the worker tell the server and close the session before the JVM goes.
          finished.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, "keel-cancel-on-exit");
    Runtime.getRuntime().addShutdownHook(hook);
    try (McpClient client = options.connect(target, host)) {
      return work.applyAsInt(client);
    } catch (RequestCancelledException e) {
      err.println("keel: cancelled");
      return CANCELLED;
    } catch (RequestTimeoutException e) {
      err.println("keel: " + e.getMessage() + " (cancelled at the server; raise --timeout)");
      return TIMED_OUT;
    } catch (McpException e) {
      err.println("keel: the server answered error " + e.code() + ": "
          + Text.safe(e.getMessage()));
      return PROTOCOL_ERROR;
    } catch (IllegalArgumentException e) {
      err.println("keel: " + Text.safe(e.getMessage()));
      return TOOL_ERROR;
    } catch (InvalidServerResponseException e) {
      err.println("keel: " + describeTarget(target) + " broke the protocol: "
          + Text.safe(e.getMessage()));
      return PROTOCOL_ERROR;
    } catch (TransportException | ConnectionClosedException e) {
      err.println("keel: " + describeTarget(target) + ": " + Text.safe(e.getMessage()));
      return UNREACHABLE;
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it is waiting for the countDown above
      }
    }
  }

  private static String describeTarget(ClientOptions.Target target) {
    return target.url() != null ? Text.safe(target.url().toString())
        : "the server command " + Text.safe(String.join(" ", target.serverCommand()));
  }
}
