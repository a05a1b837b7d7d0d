package dev.keel.bench.servers;

import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.util.Locale;
import org.eclipse.jetty.server.Server;

/**
 * Starts one of the compared servers on 127.0.0.1 and prints
 * {@code listening on http://127.0.0.1:PORT/mcp}, the line {@code ./keel fixtures} prints.
 *
 * <pre>
 * BenchServer KIND [--port N] [--max-sessions N] [--redis URI]
 *   KIND: keel | keel-probe | keel-redis | sdk-session | sdk-stateless | sdk-modern | minimal
 *         | jetty-core | vertx
 * </pre>
 *
 * <p>{@code keel-probe} is Keel with the cancellation probe ({@link CancelProbe}); the others
 * serve only {@code echo} and {@code sleep}. It runs until the process is stopped.
 */
public final class BenchServer implements AutoCloseable {

  /** The kinds of server, by the name the script and the driver use. */
  public enum Kind { KEEL, KEEL_PROBE, KEEL_REDIS, SDK_SESSION, SDK_STATELESS, SDK_MODERN, MINIMAL,
    JETTY_CORE, VERTX;

    /** Parses {@code keel-probe} and the like. */
    public static Kind parse(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /** Returns the name as the script writes it. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private final String endpoint;
  private final AutoCloseable stop;

  private BenchServer(int port, AutoCloseable stop) {
    this.endpoint = "http://127.0.0.1:" + port + "/mcp";
    this.stop = stop;
  }

  /** Starts a server of {@code kind}; port 0 picks a free one. */
  public static BenchServer start(Kind kind, int port, int maxSessions) throws Exception {
    return start(kind, port, maxSessions, null);
  }

  /** {@link #start(Kind, int, int)}; {@code redis} is the Redis of {@code keel-redis}. */
  public static BenchServer start(Kind kind, int port, int maxSessions, String redis)
      throws Exception {
    switch (kind) {
      case KEEL_REDIS: {
        if (redis == null) {
          throw new IllegalArgumentException("keel-redis needs --redis URI");
        }
        KeelServers.Clustered shared = KeelServers.clustered(redis);
        McpServer server = KeelServers.server(maxSessions, null, shared.adjust());
        McpHttpServer http = KeelServers.start(server, port, maxSessions);
        return new BenchServer(http.port(), () -> {
          http.close();
          server.close();
          shared.close();
        });
      }
      case KEEL: {
        McpServer server = KeelServers.server(maxSessions, null);
        McpHttpServer http = KeelServers.start(server, port, maxSessions);
        return new BenchServer(http.port(), () -> {
          http.close();
          server.close();
        });
      }
      case KEEL_PROBE: {
        CancelProbe probe = new CancelProbe();
        McpServer server = KeelServers.server(maxSessions, probe);
        Server jetty = KeelServers.startProbed(server, probe, port);
        return new BenchServer(Jetty.port(jetty), () -> {
          jetty.stop();
          server.close();
        });
      }
      case SDK_SESSION: {
        SdkServers.Running sdk = SdkServers.session(port);
        return new BenchServer(Jetty.port(sdk.jetty()), sdk);
      }
      case SDK_STATELESS: {
        SdkServers.Running sdk = SdkServers.stateless(port);
        return new BenchServer(Jetty.port(sdk.jetty()), sdk);
      }
      case SDK_MODERN: {
        SdkServers.Running sdk = SdkServers.modern(port);
        return new BenchServer(Jetty.port(sdk.jetty()), sdk);
      }
      case MINIMAL: {
        Server jetty = Jetty.start(new MinimalServlet(), "/mcp", port);
        return new BenchServer(Jetty.port(jetty), jetty::stop);
      }
      case JETTY_CORE: {
        Server jetty = Jetty.start(new MinimalHandler(), port);
        return new BenchServer(Jetty.port(jetty), jetty::stop);
      }
      case VERTX: {
        VertxFloor vertx = VertxFloor.start(port);
        return new BenchServer(vertx.port(), vertx);
      }
      default:
        throw new IllegalArgumentException("unknown server kind: " + kind);
    }
  }

  /** Returns the MCP endpoint URL. */
  public String endpoint() {
    return endpoint;
  }

  @Override
  public void close() throws Exception {
    stop.close();
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: BenchServer keel|keel-probe|keel-redis|sdk-session|"
          + "sdk-stateless|sdk-modern|minimal|jetty-core|vertx [--port N] [--max-sessions N] "
          + "[--redis URI]");
      System.exit(2);
    }
    Kind kind = Kind.parse(args[0]);
    int port = 0;
    int maxSessions = 20_000;
    String redis = null;
    for (int i = 1; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--redis": redis = args[i + 1]; break;
        case "--port": port = Integer.parseInt(args[i + 1]); break;
        case "--max-sessions": maxSessions = Integer.parseInt(args[i + 1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    BenchServer server = start(kind, port, maxSessions, redis);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        // the process is ending anyway
      }
    }));
    System.out.println("listening on " + server.endpoint());
    System.out.flush();
    Thread.currentThread().join();
  }
}
