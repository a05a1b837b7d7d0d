package dev.keel.mcp.client.misbehave;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A misbehaving stdio MCP server, run as a subprocess by the tests (JDK classes only).
 *
 * <p>{@code handshake SIZE}: answers {@code initialize} with a line of SIZE bytes that never
 * ends. {@code later SIZE}: completes the handshake, then answers the first request with that
 * line. {@code stderr}: writes terminal escapes and 10 KB to stderr, then behaves. In every mode
 * it then reads stdin until the client closes it.
 */
public final class HugeLineServer {

  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");

  private HugeLineServer() {}

  public static void main(String[] args) throws IOException {
    String mode = args[0];
    long size = args.length > 1 ? Long.parseLong(args[1]) : 0;
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    OutputStream out = new FileOutputStream(FileDescriptor.out);
    if (mode.equals("stderr")) {
      System.err.println("\u001b[31mred\u001b]52;c;cGF5bG9hZA==\u0007\r[main] ERROR FORGED x"
          + "A".repeat(10_000));
      System.err.flush();
    }
    String line;
    while ((line = in.readLine()) != null) {
      Matcher id = ID.matcher(line);
      if (!id.find()) {
        continue;
      }
      boolean huge = mode.equals("handshake") || !line.contains("\"initialize\"");
      if (huge && !mode.equals("stderr")) {
        hugeLine(out, size);
      } else {
        String answer = line.contains("\"initialize\"")
            ? "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
              + "\"serverInfo\":{\"name\":\"huge\",\"version\":\"1\"}}"
            : "{}";
        out.write(("{\"jsonrpc\":\"2.0\",\"id\":" + id.group(1) + ",\"result\":" + answer
            + "}\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    }
  }

  /** Writes the start of a JSON answer and then SIZE bytes without a line end. */
  private static void hugeLine(OutputStream out, long size) {
    byte[] chunk = new byte[64 * 1024];
    Arrays.fill(chunk, (byte) 'x');
    long written = 0;
    try {
      out.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pad\":\"".getBytes(
          StandardCharsets.US_ASCII));
      while (written < size) {
        out.write(chunk);
        written += chunk.length;
      }
      out.flush();
    } catch (IOException e) {
      // the client stopped reading and closed the pipe
    }
  }
}
