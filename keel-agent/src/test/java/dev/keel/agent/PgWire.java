package dev.keel.agent;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal client of PostgreSQL's frontend/backend protocol (version 3.0), written for the
 * differential tests from the protocol's documentation. It exists so that a text reaches the
 * server byte for byte: a JDBC driver rewrites what it is given ({@code ?} to {@code $n}, JDBC
 * escapes, splitting on {@code ;}), and the point of those tests is to compare what the server
 * itself makes of a text with what the agent's lexer made of it.
 *
 * <p>What it speaks: the startup message with trust authentication (anything else is refused:
 * the test server runs with {@code --auth=trust} on 127.0.0.1), the simple query protocol, and
 * the extended protocol's Parse, Bind, Describe, Execute and Sync. Every ErrorResponse and
 * NoticeResponse is parsed into its fields; notices are collected per exchange, because the
 * parse tree the tests compare arrives as one ({@code debug_print_parse}).
 */
final class PgWire implements AutoCloseable {

  private static final int PROTOCOL_3_0 = 196608;

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  /**
   * An ErrorResponse or NoticeResponse.
   *
   * @param fields the fields by their one-letter codes ({@code S} severity, {@code C}
   *     SQLSTATE, {@code M} message, {@code D} detail, {@code P} position...)
   */
  record Report(Map<Character, String> fields) {
    String severity() {
      return fields.getOrDefault('V', fields.get('S'));
    }

    String code() {
      return fields.get('C');
    }

    String message() {
      return fields.get('M');
    }

    String detail() {
      return fields.get('D');
    }

    @Override
    public String toString() {
      return severity() + " " + code() + ": " + message();
    }
  }

  /** An error the server answered to a simple query. */
  static final class ServerError extends RuntimeException {
    final Report report;

    ServerError(Report report) {
      super(report.toString());
      this.report = report;
    }
  }

  /**
   * What the server answered to one exchange up to its ReadyForQuery.
   *
   * @param error the ErrorResponse, or null
   * @param notices the NoticeResponses, in order
   * @param parameters the parameter count of the ParameterDescription, or -1 when none came
   * @param rows the data rows, each column as text (null for SQL NULL)
   */
  record Reply(Report error, List<Report> notices, int parameters, List<List<String>> rows) {}

  private PgWire(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
  }

  /** Connects to 127.0.0.1:{@code port} as {@code user} (trust authentication). */
  static PgWire connect(int port, String user, String database) {
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      // No exchange of these tests takes more than seconds; a hang must fail, not stall.
      socket.setSoTimeout(60_000);
      socket.setTcpNoDelay(true);
      PgWire wire = new PgWire(socket);
      wire.startup(user, database);
      return wire;
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // already failing
      }
      throw new UncheckedIOException("cannot connect to PostgreSQL on port " + port, e);
    }
  }

  private void startup(String user, String database) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    DataOutputStream b = new DataOutputStream(body);
    b.writeInt(PROTOCOL_3_0);
    for (String s : new String[] {"user", user, "database", database, "client_encoding", "UTF8",
        "application_name", "keel-differential"}) {
      cstring(b, s);
    }
    b.writeByte(0);
    out.writeInt(body.size() + 4);
    body.writeTo(out);
    out.flush();
    while (true) {
      int type = in.readUnsignedByte();
      byte[] m = body();
      switch (type) {
        case 'R' -> {
          int code = ((m[0] & 0xff) << 24) | ((m[1] & 0xff) << 16) | ((m[2] & 0xff) << 8)
              | (m[3] & 0xff);
          if (code != 0) {
            throw new IOException("the server asks for authentication (code " + code + "); "
                + "this client speaks only trust");
          }
        }
        case 'E' -> throw new IOException("startup refused: " + report(m));
        case 'Z' -> {
          return;
        }
        default -> {
          // ParameterStatus, BackendKeyData, NoticeResponse: nothing this client needs
        }
      }
    }
  }

  /** Runs {@code sql} with the simple query protocol; returns its rows, or throws the error. */
  List<List<String>> query(String sql) {
    try {
      message('Q', b -> cstring(b, sql));
      out.flush();
      Reply reply = replyUntilReady();
      if (reply.error() != null) {
        throw new ServerError(reply.error());
      }
      return reply.rows();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses {@code sql} as the unnamed prepared statement, with every parameter type left to the
   * server, and describes it; nothing is executed.
   */
  Reply parse(String sql) {
    try {
      parseMessage(sql);
      message('D', b -> {
        b.writeByte('S');
        cstring(b, "");
      });
      message('S', b -> { });
      out.flush();
      return replyUntilReady();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses {@code sql}, binds each of its {@code parameters} parameters to NULL, and executes
   * it, all in one exchange.
   */
  Reply execute(String sql, int parameters) {
    try {
      parseMessage(sql);
      message('B', b -> {
        cstring(b, "");
        cstring(b, "");
        b.writeShort(0);
        b.writeShort(parameters);
        for (int i = 0; i < parameters; i++) {
          b.writeInt(-1);
        }
        b.writeShort(0);
      });
      message('D', b -> {
        b.writeByte('P');
        cstring(b, "");
      });
      message('E', b -> {
        cstring(b, "");
        b.writeInt(0);
      });
      message('S', b -> { });
      out.flush();
      return replyUntilReady();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void parseMessage(String sql) throws IOException {
    message('P', b -> {
      cstring(b, "");
      cstring(b, sql);
      b.writeShort(0);
    });
  }

  private Reply replyUntilReady() throws IOException {
    Report error = null;
    List<Report> notices = new ArrayList<>();
    List<List<String>> rows = new ArrayList<>();
    int parameters = -1;
    while (true) {
      int type = in.readUnsignedByte();
      byte[] m = body();
      switch (type) {
        case 'E' -> error = report(m);
        case 'N' -> notices.add(report(m));
        case 't' -> parameters = ((m[0] & 0xff) << 8) | (m[1] & 0xff);
        case 'D' -> rows.add(dataRow(m));
        case 'Z' -> {
          return new Reply(error, notices, parameters, rows);
        }
        default -> {
          // ParseComplete, BindComplete, RowDescription, NoData, CommandComplete,
          // EmptyQueryResponse, ParameterStatus, NotificationResponse
        }
      }
    }
  }

  private byte[] body() throws IOException {
    int length = in.readInt();
    if (length < 4) {
      throw new IOException("malformed message length " + length);
    }
    byte[] body = new byte[length - 4];
    in.readFully(body);
    return body;
  }

  private static List<String> dataRow(byte[] m) {
    int columns = ((m[0] & 0xff) << 8) | (m[1] & 0xff);
    List<String> row = new ArrayList<>(columns);
    int at = 2;
    for (int c = 0; c < columns; c++) {
      int length = ((m[at] & 0xff) << 24) | ((m[at + 1] & 0xff) << 16)
          | ((m[at + 2] & 0xff) << 8) | (m[at + 3] & 0xff);
      at += 4;
      if (length < 0) {
        row.add(null);
      } else {
        row.add(new String(m, at, length, StandardCharsets.UTF_8));
        at += length;
      }
    }
    return row;
  }

  private static Report report(byte[] m) {
    Map<Character, String> fields = new LinkedHashMap<>();
    int at = 0;
    while (at < m.length && m[at] != 0) {
      char code = (char) m[at++];
      int end = at;
      while (m[end] != 0) {
        end++;
      }
      fields.put(code, new String(m, at, end - at, StandardCharsets.UTF_8));
      at = end + 1;
    }
    return new Report(fields);
  }

  private interface Body {
    void write(DataOutputStream b) throws IOException;
  }

  private void message(char type, Body body) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    body.write(new DataOutputStream(bytes));
    out.writeByte(type);
    out.writeInt(bytes.size() + 4);
    bytes.writeTo(out);
  }

  private static void cstring(DataOutputStream b, String s) throws IOException {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    for (byte x : bytes) {
      if (x == 0) {
        // the protocol's strings end at NUL; one inside would send a different text
        throw new IllegalArgumentException("a protocol string cannot hold NUL");
      }
    }
    b.write(bytes);
    b.writeByte(0);
  }

  @Override
  public void close() {
    try {
      message('X', b -> { });
      out.flush();
    } catch (IOException e) {
      // the connection is going away anyway
    }
    try {
      socket.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }
}
