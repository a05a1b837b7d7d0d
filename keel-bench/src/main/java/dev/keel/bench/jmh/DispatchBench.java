package dev.keel.bench.jmh;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Dispatch of one stateless 2026-07-28 {@code tools/call} through Keel's engine, without HTTP:
 * {@code _meta} checks, tool lookup, argument validation against the schema, the handler,
 * cancellation registration and the result tree. Decoding is included, as a transport does it.
 *
 * <p>{@code blocking=true} is a tool as most are declared, handed off to a handler thread and
 * waited for, so the hand-off is most of what it measures; {@code false} declares echo
 * non-blocking, as the HTTP benchmark's servers do, and measures the engine's own work.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DispatchBench {

  static final byte[] CALL = ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
      + "{\"name\":\"echo\",\"arguments\":{\"text\":\"hello, keel\"},\"_meta\":{"
      + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{},"
      + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"jmh\",\"version\":\"1\"}}}}")
      .getBytes(StandardCharsets.UTF_8);

  @Param({"true", "false"})
  boolean blocking;

  McpServer server;
  ServerEngine engine;
  final MessageStream stream = message -> true;

  @Setup
  public void setUp() {
    server = McpServer.builder().name("jmh").version("1")
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
                + "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}").build(),
            blocking ? ToolOptions.defaults() : ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> CallToolResult.text(args.get("text").asString()))
        .build();
    engine = server.engine();
    Optional<JsonRpcMessage> answer = dispatch();
    if (answer.isEmpty() || !answer.get().toString().contains("hello, keel")) {
      throw new IllegalStateException("the engine did not answer the call: " + answer);
    }
  }

  @TearDown
  public void tearDown() {
    server.close();
  }

  @Benchmark
  public Optional<JsonRpcMessage> dispatch() {
    return engine.handle(null, Principal.local(), engine.codec().decode(CALL), stream);
  }

  @Benchmark
  public byte[] dispatchAndEncode() {
    return engine.codec().encode(dispatch().orElseThrow());
  }
}
