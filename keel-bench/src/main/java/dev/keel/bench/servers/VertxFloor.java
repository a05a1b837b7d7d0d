package dev.keel.bench.servers;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The floor under Quarkus MCP: {@link MinimalServlet}'s work (parse the body with Jackson, answer
 * one fixed result with the request's id, 202 for a notification, 204 for a DELETE) on a raw
 * Vert.x HTTP server, the Vert.x Quarkus 3.33.2 runs on, with no Quarkus, no router and no MCP
 * between the connection and the handler. One event loop (the server is pinned to one core);
 * {@code sleep} is a timer, as Vert.x code would wait, where the servlet floors block a thread.
 */
final class VertxFloor implements AutoCloseable {

  private final JsonMapper mapper = JsonMapper.builder().build();
  private final Vertx vertx;
  private final HttpServer server;

  private VertxFloor(int port) throws Exception {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port))
        .requestHandler(this::handle);
    server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Starts the floor on {@code port} (0 picks a free one). */
  static VertxFloor start(int port) throws Exception {
    return new VertxFloor(port);
  }

  /** Returns the port it listens on. */
  int port() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest request) {
    if (request.method() != HttpMethod.POST) {
      request.response().setStatusCode(request.method() == HttpMethod.DELETE ? 204 : 405).end();
      return;
    }
    request.body().onSuccess(body -> answer(request, body))
        .onFailure(e -> request.response().setStatusCode(400).end());
  }

  private void answer(HttpServerRequest request, Buffer body) {
    JsonNode message;
    try {
      message = mapper.readTree(body.getBytes());
    } catch (RuntimeException e) {
      request.response().setStatusCode(400).end();
      return;
    }
    JsonNode id = message.get("id");
    if (id == null) {
      request.response().setStatusCode(202).end();
      return;
    }
    Buffer answer = Buffer.buffer(MinimalServlet.answer(mapper.writeValueAsBytes(id)));
    JsonNode params = message.path("params");
    long sleep = BenchTools.SLEEP.equals(params.path("name").asString(""))
        ? params.path("arguments").path("ms").asLong(0) : 0;
    if (sleep > 0) {
      vertx.setTimer(sleep, t -> send(request, answer));
    } else {
      send(request, answer);
    }
  }

  private static void send(HttpServerRequest request, Buffer answer) {
    request.response().putHeader("Content-Type", "application/json").end(answer);
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
