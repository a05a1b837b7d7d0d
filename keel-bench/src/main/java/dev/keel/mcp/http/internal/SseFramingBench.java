package dev.keel.mcp.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SSE framing of one JSON-RPC message, with and without an event id, into a reused buffer.
 *
 * <p>It lives in Keel's internal package because {@code SseWriter} is package-private there;
 * the benchmark module runs on the class path, where that is allowed, and nothing in Keel's
 * published jars changes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SseFramingBench {

  static final byte[] RESULT = ("{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"content\":"
      + "[{\"type\":\"text\",\"text\":\"hello, keel\"}]}}").getBytes(StandardCharsets.UTF_8);

  ByteArrayOutputStream buffer;
  SseWriter writer;

  @Setup
  public void setUp() {
    buffer = new ByteArrayOutputStream(4096);
    writer = new SseWriter(buffer);
  }

  @Benchmark
  public int messageWithEventId() throws IOException {
    buffer.reset();
    writer.message("s1-17", RESULT);
    return buffer.size();
  }

  @Benchmark
  public int messageWithoutEventId() throws IOException {
    buffer.reset();
    writer.message(null, RESULT);
    return buffer.size();
  }

  @Benchmark
  public int keepAlive() throws IOException {
    buffer.reset();
    writer.keepAlive();
    return buffer.size();
  }
}
