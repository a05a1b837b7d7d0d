package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.redis.TestRedis;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;

/**
 * Three real {@code keel fixtures --redis} processes over one real Redis, behind a real
 * round-robin HAProxy, and the raw HTTP a test drives them with: every answer says which node
 * the balancer gave the request to, and {@link #steer} makes the next request go to a chosen
 * node, so a test can put the parts of one exchange on different nodes on purpose.
 */
final class ClusterNodes implements AutoCloseable {

  static final String NAMES = "abc";
  static final String V = "2025-11-25";

  final TestRedis redis;
  final List<KeelProcess> nodes = new ArrayList<>();
  final TestHaproxy lb;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  /** Readers of open streams, each on a thread of its own (the common pool may have one). */
  final ExecutorService readers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "cluster-test-reader");
    t.setDaemon(true);
    return t;
  });

  private ClusterNodes(TestRedis redis, TestHaproxy lb, List<KeelProcess> nodes) {
    this.redis = redis;
    this.lb = lb;
    this.nodes.addAll(nodes);
  }

  /** Starts Redis, three nodes with {@code extra} options, and the balancer. */
  static ClusterNodes start(String... extra) throws Exception {
    TestRedis redis = TestRedis.start();
    List<KeelProcess> started = new ArrayList<>();
    List<String> args = new ArrayList<>(List.of("--redis", redis.uri()));
    args.addAll(List.of(extra));
    try {
      // started together: three JVMs warm up faster side by side than one after another
      List<CompletableFuture<KeelProcess>> starting = new ArrayList<>();
      ExecutorService starter = Executors.newFixedThreadPool(3);
      for (int i = 0; i < 3; i++) {
        starting.add(CompletableFuture.supplyAsync(() -> {
          try {
            return KeelProcess.fixtures(args.toArray(String[]::new));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, starter));
      }
      for (CompletableFuture<KeelProcess> f : starting) {
        started.add(f.join());
      }
      starter.shutdown();
      TestHaproxy lb = TestHaproxy.start(started.stream().map(KeelProcess::url).toList());
      ClusterNodes cluster = new ClusterNodes(redis, lb, started);
      cluster.awaitAllUp();
      return cluster;
    } catch (Exception | Error e) {
      for (KeelProcess p : started) {
        p.close();
      }
      redis.close();
      throw e;
    }
  }

  /** Waits until the balancer's health checks have every node up (each answers in turn). */
  private void awaitAllUp() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (int i = 0; i < 6; i++) {
        seen.add(health().servedBy());
      }
      if (seen.size() == 3) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the balancer never had all three nodes up");
  }

  /** An answer and the node the balancer gave its request to. */
  record Answer(int status, String body, String servedBy, HttpResponse<?> raw) {
    JsonNode json() {
      String text = body.strip();
      if (text.startsWith("{")) {
        return McpJson.standard().parse(text);
      }
      List<JsonNode> events = Sse.messages(text);
      return events.get(events.size() - 1);
    }

    String session() {
      return raw.headers().firstValue("Mcp-Session-Id").orElse(null);
    }
  }

  /** The answer of {@code GET /health} through the balancer. */
  Answer health() throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(lb.health()).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body(), served(r), r);
  }

  /** Makes the balancer's next request go to node {@code name} (a, b or c). */
  void steer(char name) throws IOException, InterruptedException {
    for (int i = 0; i < 10; i++) {
      String last = health().servedBy();
      if (next(last) == name) {
        return;
      }
    }
    throw new IllegalStateException("could not steer the balancer to " + name);
  }

  /** The node after {@code name} in the balancer's turn. */
  static char next(String name) {
    return NAMES.charAt((NAMES.indexOf(name) + 1) % NAMES.length());
  }

  static String served(HttpResponse<?> r) {
    return r.headers().firstValue("X-Served-By").orElse("?");
  }

  HttpRequest.Builder request(URI target, String session, String key) {
    HttpRequest.Builder b = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", V);
    }
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    return b;
  }

  /** POSTs through the balancer and waits for the whole answer. */
  Answer post(String session, String key, String body) throws IOException, InterruptedException {
    return post(lb.endpoint(), session, key, body);
  }

  /** POSTs to {@code target} (the balancer or one node) and waits for the whole answer. */
  Answer post(URI target, String session, String key, String body)
      throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request(target, session, key)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body(), served(r), r);
  }

  /** POSTs through the balancer and returns the open stream. */
  Stream open(String session, String key, String body) throws IOException, InterruptedException {
    HttpResponse<InputStream> r = http.send(request(lb.endpoint(), session, key)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    return new Stream(r, readers);
  }

  /** The {@code _meta} of a stateless 2026-07-28 request that declares no capabilities. */
  static final String MODERN_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}";

  /** A stateless request's builder: its version, method and name headers. */
  HttpRequest.Builder modern(String key, String method, String name, String body) {
    HttpRequest.Builder b = request(lb.endpoint(), null, key)
        .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (name != null) {
      b.header("Mcp-Name", name);
    }
    return b;
  }

  /** POSTs a stateless request through the balancer and returns its open stream. */
  Stream openModern(String key, String method, String name, String body)
      throws IOException, InterruptedException {
    return new Stream(http.send(modern(key, method, name, body).build(),
        HttpResponse.BodyHandlers.ofInputStream()), readers);
  }

  /** POSTs a stateless request through the balancer and waits for the whole answer. */
  Answer postModern(String key, String method, String name, String body)
      throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(modern(key, method, name, body).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body(), served(r), r);
  }

  /** Opens a GET stream through the balancer, optionally resuming after {@code lastEventId}. */
  Stream get(String session, String key, String lastEventId)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = request(lb.endpoint(), session, key).GET()
        .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    return new Stream(r, readers);
  }

  /** Initializes a legacy session through the balancer; the answer names its node. */
  Answer initialize(String key, String capabilities) throws IOException, InterruptedException {
    Answer a = post(null, key, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"" + V + "\",\"capabilities\":" + capabilities
        + ",\"clientInfo\":{\"name\":\"cluster-test\",\"version\":\"1\"}}}");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    Answer done = post(a.session(), key,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertThat(done.status()).as(done.body()).isEqualTo(202);
    return a;
  }

  static String call(long id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}}";
  }

  /** The node process named a, b or c. */
  KeelProcess node(char name) {
    return nodes.get(NAMES.indexOf(name));
  }

  @Override
  public void close() throws Exception {
    readers.shutdownNow();
    lb.close();
    for (KeelProcess p : nodes) {
      p.close();
    }
    redis.close();
  }

  /** An SSE stream being read: its events as they come. */
  static final class Stream implements AutoCloseable {
    final HttpResponse<InputStream> response;
    final java.util.concurrent.LinkedBlockingQueue<Sse.Event> events =
        new java.util.concurrent.LinkedBlockingQueue<>();
    final CompletableFuture<Long> ended = new CompletableFuture<>();

    Stream(HttpResponse<InputStream> response, ExecutorService readers) {
      this.response = response;
      readers.execute(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(),
            StandardCharsets.UTF_8))) {
          Sse.read(in, events::add);
        } catch (IOException e) {
          // cut: as good as an end for the reader
        } finally {
          ended.complete(System.nanoTime());
        }
      });
    }

    String servedBy() {
      return served(response);
    }

    /** The next event with data, within {@code wait}; fails when none comes. */
    Sse.Event next(Duration wait) throws InterruptedException {
      long deadline = System.nanoTime() + wait.toNanos();
      while (System.nanoTime() < deadline) {
        Sse.Event e = events.poll(50, java.util.concurrent.TimeUnit.MILLISECONDS);
        if (e != null && e.data() != null && !e.data().isBlank()) {
          return e;
        }
      }
      throw new AssertionError("no event within " + wait);
    }

    /** Cuts the stream from the client's side. */
    @Override
    public void close() {
      try {
        response.body().close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  /** Just enough of a Server-Sent Events reader. */
  static final class Sse {
    record Event(String id, String data) {
      JsonNode json() {
        return McpJson.standard().parse(data);
      }
    }

    static void read(BufferedReader in, java.util.function.Consumer<Event> sink)
        throws IOException {
      String id = null;
      StringBuilder data = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          if (data != null || id != null) {
            sink.accept(new Event(id, data == null ? null : data.toString()));
          }
          id = null;
          data = null;
        } else if (line.startsWith("id:")) {
          id = line.substring(3).strip();
        } else if (line.startsWith("data:")) {
          String d = line.substring(5).stripLeading();
          data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
        }
      }
    }

    static List<JsonNode> messages(String text) {
      List<JsonNode> out = new ArrayList<>();
      try {
        read(new BufferedReader(new java.io.StringReader(text)), e -> {
          if (e.data() != null && !e.data().isBlank()) {
            out.add(McpJson.standard().parse(e.data()));
          }
        });
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return out;
    }
  }

  static Map<String, String> keys() {
    return Map.of("alice", "alice-cluster-key", "bob", "bob-cluster-key");
  }
}
