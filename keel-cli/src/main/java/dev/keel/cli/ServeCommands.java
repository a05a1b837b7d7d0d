package dev.keel.cli;

import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.stdio.StdioServerTransport;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/** Serving a server over HTTP or stdio until told to stop: shared by every server command. */
final class ServeCommands {

  private ServeCommands() {}

  /**
   * Serves over HTTP, prints one {@code listening on URL} line first on stdout (then whatever
   * {@code banner} adds), and returns 0 after SIGTERM or SIGINT.
   */
  static int http(McpServer server, McpHttpServer.Builder builder, Consumer<URI> banner)
      throws InterruptedException {
    McpHttpServer http = builder.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop = () -> {
      http.close();
      server.close();
      stopped.countDown();
    };
    Signals.onTerminate(stop);
    System.out.println("listening on " + http.endpoint());
    banner.accept(http.endpoint());
    System.out.flush();
    // on stderr: the stdout lines are a contract scripts read
    http.console().ifPresent(uri -> System.err.println("console on " + uri));
    stopped.await();
    return 0;
  }

  /**
   * Serves over stdin/stdout until stdin ends. Anything else that writes to {@code System.out}
   * is sent to stderr instead, so the protocol stream stays clean.
   */
  static int stdio(McpServer server) {
    OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    StdioServerTransport.create(server).serve(System.in, protocolOut);
    server.close();
    return 0;
  }
}
