package dev.keel.bench.servers;

import java.io.InputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The floor below the servlet: {@link MinimalServlet}'s work (parse the body with Jackson, write
 * one fixed result with the request's id) on Jetty 12's core {@code Handler} API, with no
 * servlet layer between the connection and the handler.
 */
final class MinimalHandler extends Handler.Abstract {

  private final JsonMapper mapper = JsonMapper.builder().build();

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (!"POST".equals(request.getMethod())) {
      response.setStatus("DELETE".equals(request.getMethod()) ? 204 : 405);
      callback.succeeded();
      return true;
    }
    JsonNode body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = mapper.readTree(in);
    }
    JsonNode id = body.get("id");
    if (id == null) {
      response.setStatus(202);
      callback.succeeded();
      return true;
    }
    JsonNode params = body.path("params");
    if (BenchTools.SLEEP.equals(params.path("name").asString(""))) {
      BenchTools.sleep(params.path("arguments").path("ms").asLong(0));
    }
    byte[] answer = MinimalServlet.answer(mapper.writeValueAsBytes(id));
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.length);
    response.write(true, ByteBuffer.wrap(answer), callback);
    return true;
  }
}
