package dev.keel.bench.servers;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The floor: the least work any MCP server over HTTP does. It parses the JSON-RPC body with
 * Jackson and writes one fixed {@code tools/call} result with the request's id; a notification
 * gets 202 and a DELETE 204. It checks nothing, keeps no session and answers {@code initialize}
 * with the same fixed result, which the driver accepts (no session id means no session header).
 * {@code sleep} blocks the container thread, as a naive servlet would.
 */
final class MinimalServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  private static final byte[] HEAD = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] TAIL = ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}"
      .getBytes(StandardCharsets.UTF_8);

  private final transient JsonMapper mapper = JsonMapper.builder().build();

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    JsonNode body = mapper.readTree(req.getInputStream());
    JsonNode id = body.get("id");
    if (id == null) {
      resp.setStatus(202);
      return;
    }
    JsonNode params = body.path("params");
    if (BenchTools.SLEEP.equals(params.path("name").asString(""))) {
      BenchTools.sleep(params.path("arguments").path("ms").asLong(0));
    }
    byte[] answer = answer(mapper.writeValueAsBytes(id));
    resp.setStatus(200);
    resp.setContentType("application/json");
    resp.setContentLength(answer.length);
    resp.getOutputStream().write(answer);
  }

  /** The one fixed result, with the request's id. */
  static byte[] answer(byte[] id) {
    byte[] answer = new byte[HEAD.length + id.length + TAIL.length];
    System.arraycopy(HEAD, 0, answer, 0, HEAD.length);
    System.arraycopy(id, 0, answer, HEAD.length, id.length);
    System.arraycopy(TAIL, 0, answer, HEAD.length + id.length, TAIL.length);
    return answer;
  }

  @Override
  protected void doDelete(HttpServletRequest req, HttpServletResponse resp) {
    resp.setStatus(204);
  }
}
