package dev.keel.bench.jmh;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
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
 * JSON-RPC decode and encode of the messages on the benchmark's hot path: a legacy
 * {@code tools/call} request body in, its result out, through Keel's codec with its limits.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CodecBench {

  static final byte[] CALL = ("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\","
      + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello, keel\"}}}")
      .getBytes(StandardCharsets.UTF_8);

  JsonRpcCodec codec;
  JsonRpcResponse response;

  @Setup
  public void setUp() {
    McpJson json = McpJson.standard();
    codec = new JsonRpcCodec(json);
    response = new JsonRpcResponse(RequestId.of(42),
        json.toTree(CallToolResult.text("hello, keel")));
  }

  @Benchmark
  public JsonRpcMessage decodeToolsCall() {
    return codec.decode(CALL);
  }

  @Benchmark
  public byte[] encodeToolResult() {
    return codec.encode(response);
  }

  @Benchmark
  public byte[] encodeResultFromRecord() {
    // What a handler's return costs end to end: record to tree to bytes.
    return codec.encode(new JsonRpcResponse(RequestId.of(42),
        codec.json().toTree(CallToolResult.text("hello, keel"))));
  }
}
