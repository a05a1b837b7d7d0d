package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.transport.ServerSession;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 14, finding 12 and its reason: every malformed parameter of every method answers
 * {@code -32602} (or another specific code of the spec), never {@code -32603}, and nothing is
 * logged at ERROR. Generated: every method the engine routes, in a legacy session and in the
 * stateless era, starts from a valid params object; then each field, a few levels deep, is
 * replaced by each wrong JSON type, the optional fields a method reads are added with each wrong
 * type, and params that are not an object at all go through the codec as a transport sends them.
 */
class MalformedParamsTest {

  static final McpJson JSON = McpJson.standard();
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  static final String TASKS = "io.modelcontextprotocol/tasks";
  static final String META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"" + TASKS + "\":{}}},"
      + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"},"
      + "\"io.modelcontextprotocol/logLevel\":\"info\",\"progressToken\":\"p1\"}";
  static final String CURSOR = Base64.getUrlEncoder().withoutPadding()
      .encodeToString("keel1:0".getBytes(StandardCharsets.UTF_8));
  /** Optional fields some method reads, added where a template lacks them. */
  static final List<String> OPTIONAL = List.of("cursor", "_meta", "task", "arguments",
      "requestState", "inputResponses", "context", "name", "uri", "taskId", "level");
  /** The codes a malformed parameter may be answered with: each names what went wrong. */
  static final Set<Integer> SPECIFIC = Set.of(ErrorCodes.INVALID_PARAMS,
      ErrorCodes.RESOURCE_NOT_FOUND, ErrorCodes.METHOD_NOT_FOUND, ErrorCodes.INVALID_REQUEST,
      ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION);

  /** A template: a method, the era it is sent in, and params it answers with a result. */
  record Template(String method, boolean modern, ObjectNode params, boolean succeeds) {}

  /**
   * A stream that holds what a subscription asks it to, as the HTTP transport does; {@link
   * #gone} ends the subscription as a client that went away would.
   */
  static final class HoldingStream implements RequestStream {
    private Runnable onGone;
    private boolean held;

    @Override
    public boolean send(JsonRpcMessage message) {
      return true;
    }

    @Override
    public void finish(java.util.Optional<JsonRpcMessage> answer) {}

    @Override
    public void closeForPolling() {}

    @Override
    public void release() {}

    @Override
    public boolean hold(Runnable whenGone) {
      this.onGone = whenGone;
      this.held = true;
      return true;
    }

    void gone() {
      if (onGone != null) {
        onGone.run();
      }
    }
  }

  private final AtomicLong ids = new AtomicLong();
  private McpServer server;
  private ServerSession session;
  private String legacyTask;
  private String modernTask;

  @BeforeEach
  void start() {
    ToolOptions task = ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL);
    // Every task-augmented variant starts a real task: on a loaded machine more than the
    // default 64 can still be running at once, and a limit refusal is not what this test judges.
    server = McpServer.builder().name("fuzz").version("1")
        .maxActiveTasksPerPrincipal(100_000).maxTasksPerPrincipal(100_000).maxTasks(100_000)
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
                + "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}").build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .tool(Tool.builder("quick").build(), task, (ctx, args) -> CallToolResult.text("quick"))
        .prompt(Prompt.of("greet", "Greets", PromptArgument.required("who", "whom")),
            (ctx, arguments) -> GetPromptResult.of(
                PromptMessage.user("Hi " + arguments.get("who"))))
        .resource(Resource.of("test://fixed", "fixed", null, "text/plain"),
            (ctx, uri) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "v")))
        .resourceTemplate(ResourceTemplate.of("test://items/{id}", "items", null, "text/plain"),
            (ctx, uri, vars) -> ReadResourceResult.of(
                ResourceContents.text(uri, "text/plain", "item " + vars.get("id"))))
        .completion(new CompletionReference.PromptRef("greet"),
            (ctx, request) -> Completion.matching(List.of("ada", "alan"),
                request.argument().value()))
        .completion(new CompletionReference.ResourceTemplateRef("test://items/{id}"),
            (ctx, request) -> Completion.matching(List.of("1", "2"), request.argument().value()))
        .build();
    InitializeOutcome outcome = server.engine().initialize(Principal.local(),
        request("initialize", initializeParams()), null);
    session = outcome.session();
    legacyTask = ((JsonRpcResponse) send(false, "tools/call",
        JSON.parseObject("{\"name\":\"quick\",\"task\":{}}")).orElseThrow())
        .result().at("/task/taskId").stringValue();
    modernTask = ((JsonRpcResponse) send(true, "tools/call",
        JSON.parseObject("{\"name\":\"quick\",\"_meta\":" + META + "}")).orElseThrow())
        .result().get("taskId").stringValue();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static ObjectNode initializeParams() {
    return JSON.parseObject("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":"
        + "{\"listChanged\":true},\"elicitation\":{}},\"clientInfo\":{\"name\":\"fuzz\","
        + "\"version\":\"1\"},\"_meta\":{\"progressToken\":\"p0\"}}");
  }

  List<Template> templates() {
    List<Template> all = new ArrayList<>();
    String tool = "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},\"_meta\":"
        + "{\"progressToken\":\"p1\"}}";
    String completion = "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":"
        + "{\"name\":\"who\",\"value\":\"a\"},\"context\":{\"arguments\":{\"who\":\"a\"}}}";
    String templateCompletion = "{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
        + "\"test://items/{id}\"},\"argument\":{\"name\":\"id\",\"value\":\"1\"}}";
    String cursor = "{\"cursor\":\"" + CURSOR + "\"}";
    // Legacy, in a session.
    legacy(all, "ping", "{}", true);
    legacy(all, "logging/setLevel", "{\"level\":\"info\"}", true);
    legacy(all, "tools/list", cursor, true);
    legacy(all, "tools/call", tool, true);
    legacy(all, "tools/call", "{\"name\":\"quick\",\"arguments\":{},\"task\":{\"ttl\":60000}}",
        true);
    legacy(all, "resources/list", cursor, true);
    legacy(all, "resources/templates/list", cursor, true);
    legacy(all, "resources/read", "{\"uri\":\"test://fixed\"}", true);
    legacy(all, "resources/read", "{\"uri\":\"test://items/7\"}", true);
    legacy(all, "resources/subscribe", "{\"uri\":\"test://fixed\"}", true);
    legacy(all, "resources/unsubscribe", "{\"uri\":\"test://fixed\"}", true);
    legacy(all, "prompts/list", cursor, true);
    legacy(all, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"who\":\"ada\"}}", true);
    legacy(all, "completion/complete", completion, true);
    legacy(all, "completion/complete", templateCompletion, true);
    legacy(all, "tasks/get", "{\"taskId\":\"" + legacyTask + "\"}", true);
    legacy(all, "tasks/result", "{\"taskId\":\"" + legacyTask + "\"}", true);
    legacy(all, "tasks/list", cursor, true);
    // The quick task has ended: cancelling it is refused (-32602), which is still specific.
    legacy(all, "tasks/cancel", "{\"taskId\":\"" + legacyTask + "\"}", false);
    // Stateless, no session: every request carries _meta.
    modern(all, "server/discover", "{}", true);
    modern(all, "subscriptions/listen", "{\"notifications\":{\"toolsListChanged\":true,"
        + "\"resourceSubscriptions\":[\"test://fixed\"],\"taskIds\":[\"" + modernTask + "\"]}}",
        true);
    modern(all, "tools/list", cursor, true);
    modern(all, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},"
        + "\"inputResponses\":{}}", true);
    modern(all, "tools/call", "{\"name\":\"quick\"}", true);
    modern(all, "resources/list", cursor, true);
    modern(all, "resources/templates/list", cursor, true);
    modern(all, "resources/read", "{\"uri\":\"test://items/7\"}", true);
    modern(all, "prompts/list", cursor, true);
    modern(all, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"who\":\"ada\"}}", true);
    modern(all, "completion/complete", completion, true);
    modern(all, "tasks/get", "{\"taskId\":\"" + modernTask + "\"}", true);
    modern(all, "tasks/update", "{\"taskId\":\"" + modernTask + "\",\"inputResponses\":{}}",
        true);
    modern(all, "tasks/cancel", "{\"taskId\":\"" + modernTask + "\"}", true);
    return all;
  }

  private static void legacy(List<Template> all, String method, String params, boolean ok) {
    all.add(new Template(method, false, JSON.parseObject(params), ok));
  }

  private static void modern(List<Template> all, String method, String params, boolean ok) {
    ObjectNode p = JSON.parseObject(params);
    p.set("_meta", JSON.parseObject(META));
    all.add(new Template(method, true, p, ok));
  }

  /** The wrong values every field gets in turn. */
  static List<JsonNode> wrongValues() {
    ObjectNode deep = NODES.objectNode();
    ObjectNode at = deep;
    for (int i = 0; i < 40; i++) {
      at = at.putObject("a");
    }
    at.put("b", 1);
    return List.of(NODES.objectNode(), NODES.arrayNode(), NODES.numberNode(1),
        NODES.numberNode(1.5), NODES.booleanNode(true), NODES.nullNode(), NODES.stringNode("x"),
        NODES.stringNode(""), NODES.numberNode(-1),
        NODES.numberNode(new BigInteger("123456789012345678901234567890123456789")),
        NODES.numberNode(new BigDecimal("1e400")), deep,
        NODES.arrayNode().add(NODES.objectNode()).add(NODES.nullNode()));
  }

  /** A variant of a template: where it was changed, and the params sent. */
  record Variant(String where, ObjectNode params) {}

  /** Every field (four levels deep) replaced by each wrong value, and optional ones added. */
  static List<Variant> variants(ObjectNode template) {
    List<Variant> out = new ArrayList<>();
    List<List<Object>> paths = new ArrayList<>();
    collectPaths(template, new ArrayList<>(), paths, 0);
    for (String field : OPTIONAL) {
      if (!template.has(field)) {
        paths.add(List.of(field));
      }
    }
    for (List<Object> path : paths) {
      for (JsonNode wrong : wrongValues()) {
        ObjectNode copy = template.deepCopy();
        set(copy, path, wrong.deepCopy());
        out.add(new Variant(path + " = " + abbreviate(wrong), copy));
      }
    }
    return out;
  }

  private static void collectPaths(JsonNode node, List<Object> prefix, List<List<Object>> out,
      int depth) {
    if (depth >= 4) {
      return;
    }
    if (node instanceof ObjectNode object) {
      for (Map.Entry<String, JsonNode> e : object.properties()) {
        List<Object> path = new ArrayList<>(prefix);
        path.add(e.getKey());
        out.add(path);
        collectPaths(e.getValue(), path, out, depth + 1);
      }
    } else if (node instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        List<Object> path = new ArrayList<>(prefix);
        path.add(i);
        out.add(path);
        collectPaths(array.get(i), path, out, depth + 1);
      }
    }
  }

  private static void set(JsonNode root, List<Object> path, JsonNode value) {
    JsonNode parent = root;
    for (int i = 0; i < path.size() - 1; i++) {
      Object step = path.get(i);
      parent = step instanceof String s ? parent.get(s) : parent.get((Integer) step);
    }
    Object last = path.get(path.size() - 1);
    if (last instanceof String s) {
      ((ObjectNode) parent).set(s, value);
    } else {
      ((ArrayNode) parent).set((Integer) last, value);
    }
  }

  private static String abbreviate(JsonNode value) {
    String text = value.toString();
    return text.length() > 24 ? text.substring(0, 24) + "…" : text;
  }

  JsonRpcRequest request(String method, ObjectNode params) {
    return new JsonRpcRequest(RequestId.of(ids.incrementAndGet()), method, params);
  }

  /**
   * Sends a request; a subscription the engine holds (answered on its stream, not here) counts
   * as a result.
   */
  Optional<JsonRpcMessage> send(boolean modern, String method, ObjectNode params) {
    HoldingStream stream = new HoldingStream();
    JsonRpcRequest request = request(method, params);
    try {
      Optional<JsonRpcMessage> answer = server.engine().handle(modern ? null : session,
          Principal.local(), request, stream);
      if (answer.isEmpty() && stream.held) {
        return Optional.of(new JsonRpcResponse(request.id(), NODES.objectNode()));
      }
      return answer;
    } finally {
      stream.gone();
    }
  }

  /** Returns why an answer is wrong, or null when it is a result or a specific error. */
  static String problem(Optional<JsonRpcMessage> answer, boolean mustSucceed) {
    if (answer.isEmpty()) {
      return "no answer";
    }
    if (answer.get() instanceof JsonRpcResponse) {
      return null;
    }
    int code = ((JsonRpcErrorResponse) answer.get()).error().code();
    if (mustSucceed) {
      return "the valid template failed with " + code;
    }
    return SPECIFIC.contains(code) ? null : "answered " + code + " "
        + ((JsonRpcErrorResponse) answer.get()).error().message();
  }

  @Test
  void everyMalformedParamOfEveryMethodInBothErasIsASpecificErrorAndLogsNoError() {
    List<String> failures = new ArrayList<>();
    int sent = 0;
    try (ErrorLog log = new ErrorLog()) {
      for (Template t : templates()) {
        String p = problem(send(t.modern(), t.method(), t.params().deepCopy()), t.succeeds());
        if (p != null) {
          failures.add(t.method() + (t.modern() ? " (stateless)" : " (legacy)") + ": " + p);
        }
        for (Variant v : variants(t.params())) {
          int mark = log.length();
          String problem = problem(send(t.modern(), t.method(), v.params()), false);
          sent++;
          String logged = log.errorsSince(mark);
          if (problem != null || logged != null) {
            failures.add(t.method() + (t.modern() ? " (stateless)" : " (legacy)") + " with "
                + v.where() + ": " + (problem != null ? problem : "logged " + logged));
          }
        }
      }
    }
    assertThat(sent).as("variants sent").isGreaterThan(2000);
    assertThat(failures).isEmpty();
  }

  @Test
  void everyMalformedInitializeParamIsASpecificErrorAndLogsNoError() {
    List<String> failures = new ArrayList<>();
    try (ErrorLog log = new ErrorLog()) {
      for (Variant v : variants(initializeParams())) {
        int mark = log.length();
        InitializeOutcome outcome = server.engine().initialize(Principal.local(),
            request("initialize", v.params()), null);
        if (outcome.session() != null) {
          outcome.session().close();
        }
        String problem = problem(Optional.of(outcome.response()), false);
        String logged = log.errorsSince(mark);
        if (problem != null || logged != null) {
          failures.add("initialize with " + v.where() + ": "
              + (problem != null ? problem : "logged " + logged));
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void malformedNotificationsAreDroppedQuietly() {
    List<String> failures = new ArrayList<>();
    try (ErrorLog log = new ErrorLog()) {
      for (String[] n : new String[][] {
          {"notifications/cancelled", "{\"requestId\":5,\"reason\":\"stop\"}"},
          {"notifications/initialized", "{}"},
          {"notifications/roots/list_changed", "{}"}}) {
        for (boolean modern : new boolean[] {false, true}) {
          ObjectNode template = JSON.parseObject(n[1]);
          if (modern) {
            template.set("_meta", JSON.parseObject(META));
          }
          for (Variant v : variants(template)) {
            int mark = log.length();
            Optional<JsonRpcMessage> answer = server.engine().handle(modern ? null : session,
                Principal.local(), new JsonRpcNotification(n[0], v.params()),
                new HoldingStream());
            String logged = log.errorsSince(mark);
            if (answer.isPresent() || logged != null) {
              failures.add(n[0] + " with " + v.where() + ": "
                  + (answer.isPresent() ? "answered " + answer.get() : "logged " + logged));
            }
          }
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void paramsThatAreNotAnObjectAreRefusedWithTheRequestIdNeverAsAnInternalError() {
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (Template t : templates()) {
      for (String params : new String[] {"[]", "[{}]", "1", "1.5", "true", "\"x\"",
          "123456789012345678901234567890"}) {
        String text = "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"" + t.method()
            + "\",\"params\":" + params + "}";
        checked++;
        try {
          JsonRpcMessage decoded = server.engine().codec().decode(text.getBytes(
              StandardCharsets.UTF_8));
          failures.add(t.method() + " with params " + params + " decoded as " + decoded);
        } catch (InvalidMessageException e) {
          if (e.code() != ErrorCodes.INVALID_PARAMS && e.code() != ErrorCodes.INVALID_REQUEST) {
            failures.add(t.method() + " with params " + params + ": " + e.code());
          }
          if (!RequestId.of(77).equals(e.requestId())) {
            failures.add(t.method() + " with params " + params + " lost its id");
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(100);
    assertThat(failures).isEmpty();
  }

  /**
   * Watches what is logged: slf4j-simple writes each line to whatever {@link System#err} is at
   * that moment, so this tees it into a buffer until closed.
   */
  static final class ErrorLog implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    ErrorLog() {
      OutputStream tee = new OutputStream() {
        @Override
        public void write(int b) {
          synchronized (buffer) {
            buffer.write(b);
          }
          original.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          synchronized (buffer) {
            buffer.write(b, off, len);
          }
          original.write(b, off, len);
        }
      };
      System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    int length() {
      synchronized (buffer) {
        return buffer.size();
      }
    }

    /** Returns the first ERROR line or stack frame logged since {@code mark}, or null. */
    String errorsSince(int mark) {
      byte[] all;
      synchronized (buffer) {
        all = buffer.toByteArray();
      }
      String text = new String(all, Math.min(mark, all.length),
          all.length - Math.min(mark, all.length), StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.contains(" ERROR ") || line.startsWith("\tat ")) {
          return line.strip();
        }
      }
      return null;
    }

    @Override
    public void close() {
      System.err.flush();
      System.setErr(original);
    }
  }
}
