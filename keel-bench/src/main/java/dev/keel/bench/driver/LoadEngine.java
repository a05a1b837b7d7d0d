package dev.keel.bench.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A closed-loop HTTP/1.1 load generator on one thread: N keep-alive connections, each with one
 * request out at a time, driven by one {@link Selector}.
 *
 * <p>Why not the JDK {@code HttpClient} or wrk: the driver gets one core, and the floor server
 * answers about 30,000 calls/s; the JDK client spends several times the server's CPU per
 * request (futures, executors, HTTP/2-ready plumbing) and would measure itself. wrk is fast but
 * needs Lua to keep a session per connection, extract {@code Mcp-Session-Id}, run the
 * four-step session lifetime and tell JSON-RPC errors apart, and it is not on every machine
 * that runs the tests. A selector loop writing prebuilt bytes and parsing only what it must
 * costs a few microseconds per request, and the same code runs in the smoke test.
 */
final class LoadEngine {

  private static final int READ_BUFFER = 32 * 1024;

  private final InetSocketAddress address;

  private final ServerCpu cpu;

  LoadEngine(InetSocketAddress address, ServerCpu cpu) {
    this.address = address;
    this.cpu = cpu;
  }

  /**
   * Runs {@code scripts}, one connection each, for {@code warmup} and then {@code measure}
   * (or until every script is done), and returns what completed inside the measured window.
   */
  Stats run(List<? extends Script> scripts, long warmup, long measure, TimeUnit unit)
      throws IOException {
    long start = System.nanoTime();
    long measureFrom = start + unit.toNanos(warmup);
    long end = measureFrom + unit.toNanos(measure);
    Stats stats = new Stats();
    List<Conn> conns = new ArrayList<>();
    try (Selector selector = Selector.open()) {
      for (Script script : scripts) {
        Conn c = new Conn(script);
        conns.add(c);
        c.open(selector);
        c.sendNext(System.nanoTime());
      }
      loop(selector, conns, stats, measureFrom, end);
      long cpuAtEnd = cpu.nanos();
      stats.serverCpuNanos = stats.serverCpuAtStart < 0 || cpuAtEnd < 0 ? -1
          : cpuAtEnd - stats.serverCpuAtStart;
    } finally {
      for (Conn c : conns) {
        c.close();
      }
    }
    long now = System.nanoTime();
    stats.windowNanos = Math.max(1, Math.min(now, end) - Math.min(measureFrom, now));
    return stats;
  }

  private void loop(Selector selector, List<Conn> conns, Stats stats, long measureFrom,
      long end) throws IOException {
    while (true) {
      long now = System.nanoTime();
      if (now >= end || conns.stream().noneMatch(c -> c.active)) {
        return;
      }
      if (now >= measureFrom && stats.serverCpuAtStart == Stats.NOT_READ) {
        stats.serverCpuAtStart = cpu.nanos();
      }
      selector.select(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(end - now))));
      for (SelectionKey key : selector.selectedKeys()) {
        Conn c = (Conn) key.attachment();
        try {
          if (key.isValid() && key.isWritable()) {
            c.flush();
          }
          if (key.isValid() && key.isReadable()) {
            c.read(selector, stats, measureFrom, end);
          }
        } catch (IOException | RuntimeException e) {
          stats.error(e.toString());
          c.script.broken();
          c.reopen(selector);
          c.sendNext(System.nanoTime());
        }
      }
      selector.selectedKeys().clear();
    }
  }

  /** One keep-alive connection and the script it runs. */
  private final class Conn {
    final Script script;
    final ResponseParser parser = new ResponseParser();
    final ByteBuffer in = ByteBuffer.allocate(READ_BUFFER);
    SocketChannel channel;
    SelectionKey key;
    ByteBuffer out;
    boolean active = true;

    Conn(Script script) {
      this.script = script;
    }

    void open(Selector selector) throws IOException {
      channel = SocketChannel.open();
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      channel.connect(address);
      channel.configureBlocking(false);
      key = channel.register(selector, SelectionKey.OP_READ, this);
      in.clear();
      parser.reset();
      out = null;
    }

    void reopen(Selector selector) throws IOException {
      close();
      open(selector);
    }

    void sendNext(long now) throws IOException {
      byte[] request = script.next(now);
      if (request == null) {
        active = false;
        return;
      }
      out = ByteBuffer.wrap(request);
      flush();
    }

    void flush() throws IOException {
      if (out == null) {
        return;
      }
      channel.write(out);
      if (out.hasRemaining()) {
        key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
      } else {
        out = null;
        key.interestOps(SelectionKey.OP_READ);
      }
    }

    void read(Selector selector, Stats stats, long measureFrom, long end) throws IOException {
      int n = channel.read(in);
      if (n < 0) {
        if (!parser.endOfStream()) {
          throw new IOException("connection closed mid-response");
        }
        complete(stats, measureFrom, end);
        return;
      }
      in.flip();
      while (active && parser.feed(in)) {
        if (complete(stats, measureFrom, end)) {
          return; // a new connection, whose buffer starts empty
        }
      }
      in.compact();
    }

    /** Handles a whole response; returns true when the connection was replaced. */
    private boolean complete(Stats stats, long measureFrom, long end) throws IOException {
      long now = System.nanoTime();
      Script.Outcome outcome = script.done(parser, now);
      if (outcome != Script.Outcome.STEP && now >= measureFrom && now <= end) {
        stats.record(outcome == Script.Outcome.OK, now - script.opStart(), parser);
      } else if (outcome == Script.Outcome.ERROR) {
        stats.unmeasuredErrors++;
      }
      boolean replace = parser.closeAfter();
      parser.reset();
      if (replace) {
        reopen(key.selector());
      }
      sendNext(now);
      return replace;
    }

    void close() {
      try {
        if (channel != null) {
          channel.close();
        }
      } catch (IOException e) {
        // closing a benchmark connection: nothing to do
      }
    }
  }
}
