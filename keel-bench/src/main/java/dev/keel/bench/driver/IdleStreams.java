package dev.keel.bench.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Holds many GET listening streams open with one selector and no thread per stream. A stream
 * counts as open once its response headers say 200; what follows (priming events,
 * keep-alive comments) is read and dropped so the server never blocks on a full socket.
 */
final class IdleStreams implements AutoCloseable {

  /** At most this many streams wait for their headers at once, so the accept queue is not flooded. */
  private static final int IN_FLIGHT = 256;

  private final InetSocketAddress address;
  private final Wire wire;
  private final Selector selector;
  private final List<SocketChannel> channels = new ArrayList<>();
  private final ByteBuffer scratch = ByteBuffer.allocate(8192);
  private int open;
  private int refused;
  private int closed;

  IdleStreams(InetSocketAddress address, Wire wire) throws IOException {
    this.address = address;
    this.wire = wire;
    this.selector = Selector.open();
  }

  /** Opens one stream per session, waiting at most {@code timeoutMillis} in all. */
  void open(List<String> sessions, long timeoutMillis) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    Deque<String> todo = new ArrayDeque<>(sessions);
    int waiting = 0;
    while ((!todo.isEmpty() || waiting > 0) && System.currentTimeMillis() < deadline) {
      while (waiting < IN_FLIGHT && !todo.isEmpty()) {
        connect(todo.poll());
        waiting++;
      }
      selector.select(100);
      for (SelectionKey key : selector.selectedKeys()) {
        waiting -= onReadable(key);
      }
      selector.selectedKeys().clear();
    }
  }

  /** Reads whatever arrived on open streams and returns how many are still open. */
  int stillOpen() throws IOException {
    selector.selectNow();
    for (SelectionKey key : selector.selectedKeys()) {
      onReadable(key);
    }
    selector.selectedKeys().clear();
    return open - closed;
  }

  int opened() {
    return open;
  }

  int refused() {
    return refused;
  }

  private void connect(String session) throws IOException {
    SocketChannel channel = SocketChannel.open();
    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
    channel.connect(address);
    channel.write(ByteBuffer.wrap(wire.listen(session)));
    channel.configureBlocking(false);
    channel.register(selector, SelectionKey.OP_READ, new ResponseParser());
    channels.add(channel);
  }

  /** Reads one stream; returns 1 when its headers just completed or it failed before them. */
  private int onReadable(SelectionKey key) throws IOException {
    SocketChannel channel = (SocketChannel) key.channel();
    ResponseParser parser = (ResponseParser) key.attachment();
    scratch.clear();
    int n = channel.read(scratch);
    boolean hadHeaders = parser.headersDone();
    if (n < 0) {
      key.cancel();
      channel.close();
      if (hadHeaders) {
        closed++;
        return 0;
      }
      refused++;
      return 1;
    }
    if (hadHeaders) {
      return 0;
    }
    scratch.flip();
    parser.feed(scratch);
    if (!parser.headersDone()) {
      return 0;
    }
    if (parser.status() == 200) {
      open++;
    } else {
      refused++;
      key.cancel();
      channel.close();
    }
    return 1;
  }

  /** Drops every stream with a reset, so no socket lingers in TIME_WAIT. */
  @Override
  public void close() throws IOException {
    for (SocketChannel c : channels) {
      c.close();
    }
    selector.close();
  }
}
