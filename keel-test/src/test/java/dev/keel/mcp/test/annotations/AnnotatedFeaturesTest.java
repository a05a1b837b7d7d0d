package dev.keel.mcp.test.annotations;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.BlobResourceContents;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.test.McpTestClient;
import dev.keel.mcp.test.TestTransport;
import dev.keel.mcp.test.ToolCall;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * Every kind of annotated feature registered with one {@code annotated(...)} call, listed and
 * used by a real client in both eras, in-process and over HTTP: tools (defaults, JavaBean and
 * record schemas from Jackson annotations, structured output), resources and templates (text,
 * blob, JSON, the protocol's own result, not found), prompts (arguments, defaults, messages),
 * completions, and the error id a failure shows the client and the log alike.
 */
class AnnotatedFeaturesTest {

  private static final McpJson JSON = McpJson.standard();
  private static final Pattern ERROR_ID = Pattern.compile("\\(error id ([0-9a-f]{8})\\)");

  private static McpServer server;

  @BeforeAll
  static void start() {
    server = McpServer.builder().name("library").version("1").annotated(new Library()).build();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static Stream<Arguments> combinations() {
    List<Arguments> all = new ArrayList<>();
    for (TestTransport t : TestTransport.values()) {
      for (Era e : List.of(Era.LEGACY, Era.MODERN)) {
        all.add(Arguments.of(t, e));
      }
    }
    return all.stream();
  }

  private static McpTestClient connect(TestTransport transport, Era era) {
    return McpTestClient.builder(server).transport(transport).era(era).connect();
  }

  private static Map<String, Tool> tools(McpTestClient client) {
    return client.tools().stream().collect(Collectors.toMap(Tool::name, Function.identity()));
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void toolSchemasHonourJacksonAnnotationsAndShowDefaults(TestTransport transport, Era era) {
    try (McpTestClient client = connect(transport, era)) {
      Map<String, Tool> tools = tools(client);
      assertThat(tools).containsOnlyKeys("search", "first", "boom");

      JsonNode input = tools.get("search").inputSchema();
      assertThat(input.at("/properties/limit")).isEqualTo(JSON.parse(
          "{\"type\":\"integer\",\"description\":\"how many at most\",\"default\":2}"));
      assertThat(input.get("required")).isEqualTo(JSON.parse("[\"query\"]"));
      JsonNode query = input.at("/properties/query");
      assertThat(query.get("description").asString()).isEqualTo("what to look for");
      // @JsonIgnore hides internalNote, @JsonProperty renames genre and makes words required
      assertThat(query.get("properties").propertyNames()).containsExactlyInAnyOrder("words",
          "kind");
      assertThat(query.at("/properties/words/description").asString())
          .isEqualTo("words of the title");
      assertThat(query.get("required")).isEqualTo(JSON.parse("[\"words\"]"));
      assertThat(query.at("/properties/kind/enum")).isEqualTo(JSON.parse("[\"NOVEL\",\"POETRY\"]"));

      // a list is wrapped in "result"; its records keep their Jackson names and descriptions
      JsonNode book = tools.get("search").outputSchema().at("/properties/result/items");
      assertThat(book.get("properties").propertyNames())
          .containsExactly("isbn_13", "title", "year", "genre");
      assertThat(book.at("/properties/year/description").asString())
          .isEqualTo("the year it was printed");
      // nulls are not written, so only the primitive is required of a result
      assertThat(book.get("required")).isEqualTo(JSON.parse("[\"year\"]"));

      JsonNode first = tools.get("first").inputSchema();
      assertThat(first.at("/properties/genre/default").asString()).isEqualTo("POETRY");
      assertThat(first.has("required")).isFalse();
      assertThat(tools.get("first").outputSchema()).isEqualTo(book);
      assertThat(tools.get("search").annotations().readOnlyHint()).isTrue();
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void toolsBindBeansAndApplyDefaultsWhenArgumentsAreAbsent(TestTransport transport, Era era) {
    try (McpTestClient client = connect(transport, era)) {
      // limit is absent: its default, 2, applies
      ToolCall search = client.call("search", "{\"query\":{\"words\":\"d\"}}");
      assertThat(search).succeeded();
      assertThat(search.result().structuredContent().at("/result")).hasSize(2);
      assertThat(search.result().structuredContent().at("/result/0/isbn_13").asString())
          .isEqualTo("9780000000001");

      ToolCall novels = client.call("search",
          "{\"query\":{\"words\":\"d\",\"kind\":\"NOVEL\"},\"limit\":5}");
      assertThat(novels.result().structuredContent().at("/result")).hasSize(2);

      // a record result is the structured content itself, and its JSON is the text
      ToolCall first = client.call("first");
      assertThat(first).succeeded().hasStructured("/title", "Leaves of Grass");
      assertThat(JSON.parse(first.text())).isEqualTo(first.result().structuredContent());
      assertThat(client.call("first", "{\"genre\":\"NOVEL\"}"))
          .hasStructured("/title", "Dune");

      // what the schema forbids never reaches the method (sent raw: the client checks too)
      for (String arguments : List.of("{\"query\":{\"words\":\"d\",\"internalNote\":\"x\"}}",
          "{\"query\":{}}")) {
        JsonNode refused = client.mcp().request("tools/call", JSON.parseObject(
            "{\"name\":\"search\",\"arguments\":" + arguments + "}"), CallOptions.defaults());
        assertThat(refused.get("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asString())
            .startsWith("Invalid arguments for tool search");
      }
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void resourcesAndTemplatesAreListedAndRead(TestTransport transport, Era era) {
    try (McpTestClient client = connect(transport, era)) {
      assertThat(client.mcp().listResources()).extracting(Resource::uri, Resource::mimeType)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("library://catalog", "text/plain"),
              org.assertj.core.groups.Tuple.tuple("library://broken", "text/plain"));
      assertThat(client.mcp().listResourceTemplates())
          .extracting(ResourceTemplate::uriTemplate, ResourceTemplate::mimeType)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("library://covers/{isbn}",
                  "application/octet-stream"),
              org.assertj.core.groups.Tuple.tuple("library://books/{isbn}", "application/json"),
              org.assertj.core.groups.Tuple.tuple("library://shelves/{n}", "text/markdown"));

      TextResourceContents catalog = (TextResourceContents) client.mcp()
          .readResource("library://catalog").contents().get(0);
      assertThat(catalog.text()).isEqualTo("Dune\nLeaves of Grass\nDubliners");
      assertThat(catalog.uri()).isEqualTo("library://catalog");

      BlobResourceContents cover = (BlobResourceContents) client.mcp()
          .readResource("library://covers/97800").contents().get(0);
      assertThat(new String(Base64.getDecoder().decode(cover.blob()), StandardCharsets.UTF_8))
          .isEqualTo("cover of 97800");
      assertThat(cover.mimeType()).isEqualTo("application/octet-stream");

      TextResourceContents book = (TextResourceContents) client.mcp()
          .readResource("library://books/9780000000003").contents().get(0);
      assertThat(book.mimeType()).isEqualTo("application/json");
      assertThat(JSON.parse(book.text())).isEqualTo(JSON.parse("{\"isbn_13\":\"9780000000003\","
          + "\"title\":\"Dubliners\",\"year\":1914,\"genre\":\"NOVEL\"}"));

      ReadResourceResult shelf = client.mcp().readResource("library://shelves/7");
      assertThat(((TextResourceContents) shelf.contents().get(0)).text())
          .isEqualTo("# Shelf 7 for true");

      // null, and a variable that is no int, both mean: no such resource
      for (String missing : List.of("library://books/0", "library://shelves/seven")) {
        assertThatThrownBy(() -> client.mcp().readResource(missing))
            .isInstanceOf(McpException.class).hasMessageContaining("Resource not found");
      }
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void promptsAreListedAndGotWithTheirArguments(TestTransport transport, Era era) {
    try (McpTestClient client = connect(transport, era)) {
      Map<String, Prompt> prompts = client.mcp().listPrompts().stream()
          .collect(Collectors.toMap(Prompt::name, Function.identity()));
      assertThat(prompts).containsOnlyKeys("review", "discuss", "welcome", "sulk");
      assertThat(prompts.get("review").description()).isEqualTo("Writes a review of a book");
      assertThat(prompts.get("review").arguments()).containsExactly(
          new PromptArgument("isbn", null, "its ISBN", true),
          new PromptArgument("tone", null, "the tone (default: friendly)", null),
          new PromptArgument("words", null, null, null));
      assertThat(prompts.get("discuss").title()).isEqualTo("Discussion");

      GetPromptResult review = client.mcp().getPrompt("review", Map.of("isbn", "42"));
      assertThat(text(review, 0)).isEqualTo("Review 42 in a friendly tone");
      assertThat(review.description()).isEqualTo("Writes a review of a book");
      assertThat(text(client.mcp().getPrompt("review",
          Map.of("isbn", "42", "tone", "stern", "words", "100")), 0))
          .isEqualTo("Review 42 in a stern tone in 100 words");

      GetPromptResult discuss = client.mcp().getPrompt("discuss", Map.of("genre", "POETRY"));
      assertThat(discuss.messages()).hasSize(2);
      assertThat(text(discuss, 0)).isEqualTo("Let us talk about POETRY");
      assertThat(client.mcp().getPrompt("welcome", Map.of()).description()).isEqualTo("as is");

      assertThatThrownBy(() -> client.mcp().getPrompt("review", Map.of()))
          .isInstanceOf(McpException.class)
          .satisfies(e -> assertThat(((McpException) e).code())
              .isEqualTo(ErrorCodes.INVALID_PARAMS))
          .hasMessageContaining("Missing required argument: isbn");
      assertThatThrownBy(() -> client.mcp().getPrompt("discuss", Map.of("genre", "OPERA")))
          .isInstanceOf(McpException.class)
          .hasMessageContaining("Invalid value for argument genre");
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void completionsCompleteAPromptArgumentAndATemplateVariable(TestTransport transport,
      Era era) {
    try (McpTestClient client = connect(transport, era)) {
      Completion tones = client.mcp().complete(new CompletionReference.PromptRef("review"),
          "tone", "fr");
      assertThat(tones.values()).containsExactly("friendly", "frank");
      assertThat(tones.total()).isEqualTo(2);

      Completion isbns = client.mcp().complete(
          new CompletionReference.ResourceTemplateRef("library://books/{isbn}"), "isbn",
          "978000000000");
      assertThat(isbns.values()).hasSize(3);

      // an argument no method completes gets no suggestions
      assertThat(client.mcp().complete(new CompletionReference.PromptRef("review"), "isbn", "")
          .values()).isEmpty();
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void aFailingToolShowsAnErrorIdThatIsInTheLogLineWithItsStackTrace(TestTransport transport,
      Era era) {
    try (LogCapture log = new LogCapture(); McpTestClient client = connect(transport, era)) {
      ToolCall boom = client.call("boom");

      assertThat(boom).isError();
      assertThat(boom.text()).matches("Tool boom failed \\(error id [0-9a-f]{8}\\)");
      assertLogged(log, idOf(boom.text()), "tool boom failed", "java.lang.IllegalStateException",
          "Library.boom");
    }
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void failingResourcesPromptsAndCompletionsShowAnErrorIdThatIsInTheLog(
      TestTransport transport, Era era) {
    try (LogCapture log = new LogCapture(); McpTestClient client = connect(transport, era)) {
      McpException read = failure(() -> client.mcp().readResource("library://broken"));
      assertLogged(log, internal(read), "resources/read library://broken failed",
          "java.io.IOException", "Library.broken");

      McpException prompt = failure(() -> client.mcp().getPrompt("sulk", Map.of()));
      assertLogged(log, internal(prompt), "prompts/get sulk failed",
          "java.lang.IllegalStateException", "Library.sulk");

      McpException complete = failure(() -> client.mcp().complete(
          new CompletionReference.PromptRef("discuss"), "genre", "P"));
      assertLogged(log, internal(complete), "completion/complete discuss failed",
          "java.lang.IllegalStateException", "Library.genres");
    }
  }

  private static String text(GetPromptResult result, int index) {
    return ((TextContent) result.messages().get(index).content()).text();
  }

  private static McpException failure(Runnable call) {
    try {
      call.run();
    } catch (McpException e) {
      return e;
    }
    throw new AssertionError("the call did not fail");
  }

  /** Checks the client's error: -32603, an error id, nothing of the failure itself. */
  private static String internal(McpException e) {
    assertThat(e.code()).isEqualTo(ErrorCodes.INTERNAL_ERROR);
    assertThat(e.getMessage()).matches("Internal error \\(error id [0-9a-f]{8}\\)")
        .doesNotContain(Library.SECRET);
    return idOf(e.getMessage());
  }

  private static String idOf(String text) {
    assertThat(text).doesNotContain(Library.SECRET);
    Matcher m = ERROR_ID.matcher(text);
    assertThat(m.find()).as("an error id in %s", text).isTrue();
    return m.group(1);
  }

  /**
   * Checks that one ERROR line names the failure and the id, and that the stack trace (with
   * the exception and the method that threw it) follows it.
   */
  private static void assertLogged(LogCapture log, String id, String what, String exception,
      String frame) {
    String all = log.text();
    List<String> lines = List.of(all.split("\n"));
    int at = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("(error id " + id + ")")) {
        assertThat(at).as("one log line carries error id %s", id).isEqualTo(-1);
        at = i;
      }
    }
    assertThat(at).as("a log line with error id %s in:%n%s", id, all).isNotEqualTo(-1);
    assertThat(lines.get(at)).contains("ERROR").contains(what + " (error id " + id + ")");
    assertThat(lines.get(at + 1)).startsWith(exception + ": " + Library.SECRET);
    assertThat(lines.subList(at + 1, Math.min(lines.size(), at + 6)))
        .anyMatch(l -> l.strip().startsWith("at ") && l.contains(frame));
  }
}
