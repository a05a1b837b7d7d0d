package dev.keel.bench.jmh;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.ServerEngine;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A legacy session's engine work without HTTP, as the benchmark's full-sessions scenario makes
 * it: the {@code initialize} request decoded, its params read, the session created, the answer
 * encoded, and the session ended.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InitializeBench {

  static final byte[] INITIALIZE = ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
      + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":"
      + "{\"listChanged\":true},\"elicitation\":{\"form\":{}},\"sampling\":{}},"
      + "\"clientInfo\":{\"name\":\"keel-bench\",\"version\":\"1\"}}}")
      .getBytes(StandardCharsets.UTF_8);

  McpServer server;
  ServerEngine engine;

  @Setup
  public void setUp() {
    server = McpServer.builder().name("jmh").version("1").maxSessions(1_000).build();
    engine = server.engine();
    if (!(session().length > 0)) {
      throw new IllegalStateException("the engine did not answer initialize");
    }
  }

  @TearDown
  public void tearDown() {
    server.close();
  }

  @Benchmark
  public byte[] session() {
    InitializeOutcome outcome = engine.initialize(Principal.local(),
        (JsonRpcRequest) engine.codec().decode(INITIALIZE), null);
    JsonRpcMessage answer = outcome.response();
    if (!(answer instanceof JsonRpcResponse) || outcome.session() == null) {
      throw new IllegalStateException("initialize was refused: " + answer);
    }
    byte[] bytes = engine.codec().encode(answer);
    outcome.session().close();
    return bytes;
  }
}
