package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.core.jsonschema.JsonSchemaCompiler;
import dev.keel.mcp.core.jsonschema.JsonSchemaValidator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolParam;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class AnnotatedToolsTest {

  private static final McpJson JSON = McpJson.standard();

  enum Mood { HAPPY, GRUMPY }

  record Point(int x, int y) {}

  record Renamed(@ToolParam(name = "full_name") String name) {}

  record WithOptional(String name, Optional<String> title) {}

  static final class Weather {
    final AtomicReference<RequestContext> seenContext = new AtomicReference<>();
    final AtomicReference<Optional<String>> seenSuffix = new AtomicReference<>();

    @McpTool(description = "Greets someone", title = "Greeter")
    String greet(String name, int times, Optional<String> suffix, Mood mood, List<String> tags,
        Point point, RequestContext ctx) {
      seenContext.set(ctx);
      seenSuffix.set(suffix);
      return (name + "!").repeat(times) + suffix.orElse("") + " " + mood + " " + tags + " "
          + point.x() + "," + point.y();
    }

    @McpTool(name = "where", readOnly = true)
    Point locate(@ToolParam(name = "q", description = "what to find") String query) {
      return new Point(query.length(), 2);
    }

    @McpTool(destructive = true, scopes = {"mcp:count", "mcp:tools"})
    int count(List<String> items) {
      return items.size();
    }

    @McpTool
    List<String> split(String text) {
      return List.of(text.split(","));
    }

    @McpTool
    CallToolResult raw(@ToolParam(required = false) String note) {
      return CallToolResult.error(note == null ? "no note" : note);
    }

    @McpTool
    String fail() {
      throw new IllegalStateException("broken inside");
    }

    @McpTool
    String nothing() {
      return null;
    }

    String notATool() {
      return "x";
    }
  }

  static final class NoTools {
    String plain() {
      return "x";
    }
  }

  static final class RecordTools {
    @McpTool
    String renamed(Renamed person) {
      return "name=" + person.name();
    }

    @McpTool
    String optionalComponent(WithOptional value) {
      return "title=" + value.title();
    }
  }

  record Order(@com.fasterxml.jackson.annotation.JsonProperty("order_id") String id,
      @ToolParam(defaultValue = "3") int quantity) {}

  static final class Defaulted {
    @McpTool
    String place(Order order, @ToolParam(defaultValue = "[\"a\",\"b\"]") List<String> tags,
        @ToolParam(defaultValue = "fast") String speed) {
      return order.id() + " x" + order.quantity() + " " + tags + " " + speed;
    }
  }

  private static Map<String, AnnotatedTools.Made> scan(Object instance) {
    return AnnotatedTools.scan(instance, JSON).stream()
        .collect(Collectors.toMap(m -> m.tool().name(), Function.identity()));
  }

  private static ObjectNode args(String json) {
    return JSON.parseObject(json);
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void scanFindsOnlyAnnotatedMethodsInMethodNameOrder() {
    List<String> names = AnnotatedTools.scan(new Weather(), JSON).stream()
        .map(m -> m.tool().name()).toList();

    // ordered by the Java method name: "where" is the tool of method "locate"
    assertThat(names).containsExactly("count", "fail", "greet", "where", "nothing", "raw",
        "split");
  }

  @Test
  void classWithoutToolsIsRejected() {
    assertThatThrownBy(() -> AnnotatedTools.scan(new NoTools(), JSON))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no @McpTool methods");
  }

  @Test
  void inputSchemaListsParametersButNotTheContext() {
    Tool tool = scan(new Weather()).get("greet").tool();
    ObjectNode schema = tool.inputSchema();

    assertThat(schema.get("type").stringValue()).isEqualTo("object");
    assertThat(schema.get("properties").propertyNames())
        .containsExactly("name", "times", "suffix", "mood", "tags", "point");
    assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
    assertThat(schema.get("required"))
        .isEqualTo(JSON.parse("[\"name\",\"times\",\"mood\",\"tags\",\"point\"]"));
  }

  @Test
  void inputSchemaDescribesEachParameterType() {
    ObjectNode properties = (ObjectNode) scan(new Weather()).get("greet").tool().inputSchema()
        .get("properties");

    assertThat(properties.get("name")).isEqualTo(JSON.parse("{\"type\":\"string\"}"));
    assertThat(properties.get("times")).isEqualTo(JSON.parse("{\"type\":\"integer\"}"));
    assertThat(properties.get("suffix")).isEqualTo(JSON.parse("{\"type\":\"string\"}"));
    assertThat(properties.get("mood"))
        .isEqualTo(JSON.parse("{\"type\":\"string\",\"enum\":[\"HAPPY\",\"GRUMPY\"]}"));
    assertThat(properties.get("tags"))
        .isEqualTo(JSON.parse("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"));
    assertThat(properties.get("point")).isEqualTo(TypeSchemas.of(Point.class));
  }

  @Test
  void annotationSuppliesNameTitleDescriptionAndHints() {
    Map<String, AnnotatedTools.Made> tools = scan(new Weather());
    Tool greet = tools.get("greet").tool();
    Tool where = tools.get("where").tool();
    Tool count = tools.get("count").tool();

    assertThat(greet.description()).isEqualTo("Greets someone");
    assertThat(greet.title()).isEqualTo("Greeter");
    assertThat(greet.annotations()).isNull();
    assertThat(where.annotations().readOnlyHint()).isTrue();
    assertThat(where.annotations().idempotentHint()).isTrue();
    assertThat(where.annotations().destructiveHint()).isNull();
    assertThat(count.annotations().destructiveHint()).isTrue();
    assertThat(count.annotations().readOnlyHint()).isNull();
  }

  @Test
  void toolParamRenamesAndDescribesAParameter() {
    ObjectNode schema = scan(new Weather()).get("where").tool().inputSchema();

    assertThat(schema.get("properties").propertyNames()).containsExactly("q");
    assertThat(schema.at("/properties/q/description").stringValue()).isEqualTo("what to find");
    assertThat(schema.get("required")).isEqualTo(JSON.parse("[\"q\"]"));
  }

  @Test
  void optionalToolParamIsNotRequired() {
    ObjectNode schema = scan(new Weather()).get("raw").tool().inputSchema();

    assertThat(schema.has("required")).isFalse();
    assertThat(schema.get("additionalProperties").booleanValue()).isFalse();
  }

  @Test
  void invocationBindsEveryArgumentAndPassesTheContext() throws Exception {
    Weather weather = new Weather();
    RequestContext ctx = new StubContext();

    CallToolResult result = scan(weather).get("greet").handler().call(ctx, args(
        "{\"name\":\"Ada\",\"times\":2,\"suffix\":\"?\",\"mood\":\"GRUMPY\","
            + "\"tags\":[\"a\",\"b\"],\"point\":{\"x\":3,\"y\":4}}"));

    assertThat(text(result)).isEqualTo("Ada!Ada!? GRUMPY [a, b] 3,4");
    assertThat(result.structuredContent()).isNull();
    assertThat(result.failed()).isFalse();
    assertThat(weather.seenContext.get()).isSameAs(ctx);
  }

  @Test
  void absentOptionalArgumentIsBoundAsEmpty() throws Exception {
    Weather weather = new Weather();

    CallToolResult result = scan(weather).get("greet").handler().call(new StubContext(), args(
        "{\"name\":\"Bo\",\"times\":1,\"mood\":\"HAPPY\",\"tags\":[],"
            + "\"point\":{\"x\":0,\"y\":0}}"));

    assertThat(weather.seenSuffix.get()).isEqualTo(Optional.empty());
    assertThat(text(result)).isEqualTo("Bo! HAPPY [] 0,0");
  }

  @Test
  void explicitNullOptionalArgumentIsBoundAsEmpty() throws Exception {
    Weather weather = new Weather();

    scan(weather).get("greet").handler().call(new StubContext(), args(
        "{\"name\":\"Bo\",\"times\":1,\"suffix\":null,\"mood\":\"HAPPY\",\"tags\":[],"
            + "\"point\":{\"x\":0,\"y\":0}}"));

    assertThat(weather.seenSuffix.get()).isEqualTo(Optional.empty());
  }

  @Test
  void argumentThatDoesNotBindBecomesAToolErrorNamingTheArgument() throws Exception {
    CallToolResult result = scan(new Weather()).get("greet").handler().call(new StubContext(),
        args("{\"name\":\"Ada\",\"times\":\"SECRET-many\",\"mood\":\"HAPPY\",\"tags\":[],"
            + "\"point\":{\"x\":0,\"y\":0}}"));

    assertThat(result.failed()).isTrue();
    assertThat(text(result)).isEqualTo("Invalid value for argument times");
  }

  @Test
  void unknownEnumConstantBecomesAToolError() throws Exception {
    CallToolResult result = scan(new Weather()).get("greet").handler().call(new StubContext(),
        args("{\"name\":\"Ada\",\"times\":1,\"mood\":\"SLEEPY\",\"tags\":[],"
            + "\"point\":{\"x\":0,\"y\":0}}"));

    assertThat(result.failed()).isTrue();
    assertThat(text(result)).isEqualTo("Invalid value for argument mood");
  }

  @Test
  void stringReturnBecomesOneTextBlockWithoutOutputSchema() throws Exception {
    Map<String, AnnotatedTools.Made> tools = scan(new Weather());

    assertThat(tools.get("greet").tool().outputSchema()).isNull();
    assertThat(tools.get("raw").tool().outputSchema()).isNull();
  }

  @Test
  void recordReturnBecomesStructuredContentWithTheRecordSchemaAsOutputSchema() throws Exception {
    AnnotatedTools.Made where = scan(new Weather()).get("where");

    CallToolResult result = where.handler().call(new StubContext(), args("{\"q\":\"abcde\"}"));

    assertThat(where.tool().outputSchema()).isEqualTo(TypeSchemas.of(Point.class));
    assertThat(result.structuredContent()).isEqualTo(JSON.parse("{\"x\":5,\"y\":2}"));
    assertThat(JSON.parse(text(result))).isEqualTo(JSON.parse("{\"x\":5,\"y\":2}"));
  }

  @Test
  void scalarReturnIsWrappedInAResultMember() throws Exception {
    AnnotatedTools.Made count = scan(new Weather()).get("count");

    CallToolResult result = count.handler().call(new StubContext(),
        args("{\"items\":[\"a\",\"b\",\"c\"]}"));

    assertThat(result.structuredContent()).isEqualTo(JSON.parse("{\"result\":3}"));
    assertThat(count.tool().outputSchema()).isEqualTo(JSON.parse("{\"type\":\"object\","
        + "\"properties\":{\"result\":{\"type\":\"integer\"}},\"required\":[\"result\"]}"));
  }

  @Test
  void listReturnIsWrappedInAResultMember() throws Exception {
    AnnotatedTools.Made split = scan(new Weather()).get("split");

    CallToolResult result = split.handler().call(new StubContext(), args("{\"text\":\"a,b\"}"));

    assertThat(result.structuredContent()).isEqualTo(JSON.parse("{\"result\":[\"a\",\"b\"]}"));
    assertThat(split.tool().outputSchema().at("/properties/result/type").stringValue())
        .isEqualTo("array");
  }

  @Test
  void scopesOnTheAnnotationBecomeTheToolsRequiredScopes() {
    assertThat(scan(new Weather()).get("count").options().requiredScopes())
        .containsExactlyInAnyOrder("mcp:count", "mcp:tools");
    assertThat(scan(new Weather()).get("where").options().requiredScopes()).isEmpty();
  }

  @Test
  void wrappedResultMatchesItsOwnOutputSchema() throws Exception {
    AnnotatedTools.Made count = scan(new Weather()).get("count");
    JsonSchemaValidator validator = new JsonSchemaCompiler().compile(
        count.tool().outputSchema(), "count").orElseThrow();

    CallToolResult result = count.handler().call(new StubContext(), args("{\"items\":[]}"));

    assertThat(validator.validate(result.structuredContent())).isEmpty();
  }

  @Test
  void callToolResultReturnIsPassedThrough() throws Exception {
    CallToolResult result = scan(new Weather()).get("raw").handler()
        .call(new StubContext(), args("{\"note\":\"careful\"}"));

    assertThat(result).isEqualTo(CallToolResult.error("careful"));
  }

  @Test
  void nullReturnBecomesAnEmptyResult() throws Exception {
    CallToolResult result = scan(new Weather()).get("nothing").handler()
        .call(new StubContext(), args("{}"));

    assertThat(result.content()).isEmpty();
    assertThat(result.structuredContent()).isNull();
    assertThat(result.isError()).isNull();
  }

  @Test
  void exceptionFromTheMethodIsRethrownUnwrapped() {
    assertThatThrownBy(() -> scan(new Weather()).get("fail").handler()
        .call(new StubContext(), args("{}")))
        .isInstanceOf(IllegalStateException.class).hasMessage("broken inside");
  }

  @Test
  void renamedRecordComponentIsBoundUnderTheNameTheSchemaAdvertises() throws Exception {
    AnnotatedTools.Made renamed = scan(new RecordTools()).get("renamed");
    assertThat(renamed.tool().inputSchema().at("/properties/person/properties").propertyNames())
        .containsExactly("full_name");

    CallToolResult result = renamed.handler().call(new StubContext(),
        args("{\"person\":{\"full_name\":\"Ada\"}}"));

    assertThat(text(result)).isEqualTo("name=Ada");
  }

  @Test
  void absentOptionalRecordComponentIsNotRequiredAndBindsAsEmpty() throws Exception {
    AnnotatedTools.Made made = scan(new RecordTools()).get("optionalComponent");

    CallToolResult result = made.handler().call(new StubContext(),
        args("{\"value\":{\"name\":\"n\"}}"));

    assertThat(made.tool().inputSchema().at("/properties/value/required"))
        .isEqualTo(JSON.parse("[\"name\"]"));
    assertThat(text(result)).isEqualTo("title=Optional.empty");
  }

  @Test
  void defaultsAreAdvertisedAndAppliedAtEveryLevelWhenAbsent() throws Exception {
    AnnotatedTools.Made place = scan(new Defaulted()).get("place");
    ObjectNode schema = place.tool().inputSchema();

    assertThat(schema.at("/properties/tags/default")).isEqualTo(JSON.parse("[\"a\",\"b\"]"));
    assertThat(schema.at("/properties/speed/default").stringValue()).isEqualTo("fast");
    assertThat(schema.at("/properties/order/properties/quantity/default").intValue())
        .isEqualTo(3);
    assertThat(schema.get("required")).isEqualTo(JSON.parse("[\"order\"]"));
    assertThat(schema.at("/properties/order/required")).isEqualTo(JSON.parse("[\"order_id\"]"));

    ObjectNode given = args("{\"order\":{\"order_id\":\"o-1\"}}");
    CallToolResult result = place.handler().call(new StubContext(), given);

    assertThat(text(result)).isEqualTo("o-1 x3 [a, b] fast");
    assertThat(given).as("the peer's arguments are not changed")
        .isEqualTo(args("{\"order\":{\"order_id\":\"o-1\"}}"));
    assertThat(text(place.handler().call(new StubContext(), args(
        "{\"order\":{\"order_id\":\"o-2\",\"quantity\":1},\"tags\":[],\"speed\":\"slow\"}"))))
        .isEqualTo("o-2 x1 [] slow");
  }

  /** A hand-written context: the handler under test only passes it through. */
  static final class StubContext implements RequestContext {
    @Override
    public CancellationToken cancellation() {
      return CancellationToken.none();
    }

    @Override
    public Principal principal() {
      return Principal.local();
    }

    @Override
    public String sessionId() {
      return null;
    }

    @Override
    public String protocolVersion() {
      return "2025-11-25";
    }

    @Override
    public ClientCapabilities clientCapabilities() {
      return ClientCapabilities.none();
    }

    @Override
    public Implementation clientInfo() {
      return null;
    }

    @Override
    public RequestId requestId() {
      return RequestId.of(1);
    }

    @Override
    public String method() {
      return "tools/call";
    }

    @Override
    public ObjectNode meta() {
      return null;
    }

    @Override
    public void progress(double progress, Double total, String message) {}

    @Override
    public void log(LoggingLevel level, String message) {}

    @Override
    public void log(LoggingLevel level, String logger, JsonNode data) {}

    @Override
    public ElicitResult elicit(ElicitRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CreateMessageResult sample(CreateMessageRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Root> listRoots() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean requireApproval(String message) {
      return false;
    }

    @Override
    public dev.keel.mcp.server.InputRequests inputs() {
      throw new UnsupportedOperationException("the stub asks the client nothing");
    }

    @Override
    public ElicitResult elicit(String key, ElicitRequest request) {
      throw new UnsupportedOperationException("the stub asks the client nothing");
    }

    @Override
    public CreateMessageResult sample(String key, CreateMessageRequest request) {
      throw new UnsupportedOperationException("the stub asks the client nothing");
    }

    @Override
    public List<Root> listRoots(String key) {
      throw new UnsupportedOperationException("the stub asks the client nothing");
    }

    @Override
    public void closeStreamForPolling() {}
  }
}
