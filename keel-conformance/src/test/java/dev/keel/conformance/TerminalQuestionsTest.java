package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.host.TerminalQuestions;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What {@code keel call} asks the person at a terminal, with the terminal's two ends replaced by
 * text: an elicitation form field by field (typed values, defaults, retries, refusals) and a
 * sampling request the person answers in the model's place.
 */
class TerminalQuestionsTest {

  private static final String FORM = """
      {"type":"object","properties":{
        "name":{"type":"string","description":"Your name"},
        "age":{"type":"integer","default":30},
        "subscribe":{"type":"boolean"},
        "plan":{"type":"string","enum":["free","pro"]}},
       "required":["name","plan"]}""";

  private final ByteArrayOutputStream shown = new ByteArrayOutputStream();

  private TerminalQuestions typing(String lines) {
    return new TerminalQuestions(new BufferedReader(new StringReader(lines)),
        new PrintStream(shown, true, StandardCharsets.UTF_8));
  }

  private static ElicitRequest form() {
    return ElicitRequest.form("Sign up?", McpJson.standard().parseObject(FORM));
  }

  private String screen() {
    return shown.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aFormIsAskedFieldByFieldWithTypedValuesDefaultsAndRetries() throws Exception {
    // y; name; age left to its default; "maybe" is no boolean, then yes; "gold" no plan, then pro
    ElicitResult answer = typing("y\nAda\n\nmaybe\nyes\ngold\npro\n").elicit(form());
    assertThat(answer.action()).isEqualTo(ElicitResult.Action.ACCEPT);
    assertThat(answer.content().toString())
        .isEqualTo("{\"name\":\"Ada\",\"subscribe\":true,\"plan\":\"pro\"}");
    assertThat(screen()).contains("keel: the server asks: Sign up?")
        .contains("name (string, required) - Your name: ")
        .contains("age (integer, optional, default 30): ")
        .contains("subscribe must be true or false")
        .contains("plan must be one of free, pro");
  }

  @Test
  void aPersonCanDeclineOrCancelAndEndOfInputCancels() throws Exception {
    assertThat(typing("n\n").elicit(form()).action()).isEqualTo(ElicitResult.Action.DECLINE);
    assertThat(typing("c\n").elicit(form()).action()).isEqualTo(ElicitResult.Action.CANCEL);
    assertThat(typing("y\nAda\n").elicit(form()).action())
        .as("input ended in the middle of the form").isEqualTo(ElicitResult.Action.CANCEL);
    assertThat(typing("y\n\n\n\n").elicit(form()).action())
        .as("a required field left empty three times").isEqualTo(ElicitResult.Action.CANCEL);
    assertThat(screen()).contains("name is required");
  }

  @Test
  void aSamplingRequestIsAnsweredByThePersonOrRefused() throws Exception {
    CreateMessageRequest request = CreateMessageRequest.of("Greet Ada", 100);
    CreateMessageResult reply = typing("Hello, Ada!\n").sample(request);
    assertThat(reply.text()).isEqualTo("Hello, Ada!");
    assertThat(reply.model()).isEqualTo("keel-cli-user");
    assertThat(screen()).contains("user: Greet Ada");

    assertThatThrownBy(() -> typing("\n").sample(request)).isInstanceOf(McpException.class)
        .satisfies(e -> assertThat(((McpException) e).code()).isEqualTo(-1));
  }

  @Test
  void choicesAreNumberedAndAChoiceIsPickedByNumberValueOrTitle() throws Exception {
    String schema = """
        {"type":"object","properties":{
          "size":{"type":"string","oneOf":[{"const":"s","title":"Small"},
                                           {"const":"l","title":"Large"}]},
          "color":{"type":"string","enum":["red","blue"],"default":"blue"},
          "tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]}},
          "ok":{"type":"boolean","default":true}},
         "required":["size"]}""";
    ElicitRequest request = ElicitRequest.form("Pick", McpJson.standard().parseObject(schema));
    ElicitResult byNumber = typing("y\n2\n\n1, 3\nn\n").elicit(request);
    assertThat(byNumber.content().toString())
        .isEqualTo("{\"size\":\"l\",\"tags\":[\"a\",\"c\"],\"ok\":false}");
    assertThat(screen()).contains("    1) s - Small\n    2) l - Large\n")
        .contains("    1) red\n    2) blue\n")
        .contains("color (choice, optional, default blue): ")
        .contains("ok (boolean, optional, default true) [Y/n]: ");
    assertThat(typing("y\nsmall\n\n\n\n").elicit(request).content().get("size").asString())
        .isEqualTo("s");
    assertThat(typing("y\n3\n").elicit(request).action())
        .as("3 is no choice, then the input ends").isEqualTo(ElicitResult.Action.CANCEL);
    assertThat(screen()).contains("size must be one of s, l");
  }

  @Test
  void aUrlIsShownAndTheAnswerWaitsForThePerson() throws Exception {
    ElicitRequest request = ElicitRequest.url("Sign in to continue",
        "https://example.com/login?x=\u001b[2J", "e-1");
    TerminalQuestions ask = typing("y\n");
    assertThat(ask.supportsUrlMode()).isTrue();
    assertThat(ask.elicit(request).action()).isEqualTo(ElicitResult.Action.ACCEPT);
    assertThat(screen()).contains("keel: the server asks you to open this URL: "
        + "https://example.com/login?x=\\u001b[2J").contains("Sign in to continue")
        .doesNotContain("\u001b");
    assertThat(typing("n\n").elicit(request).action()).isEqualTo(ElicitResult.Action.DECLINE);
    assertThat(typing("").elicit(request).action()).isEqualTo(ElicitResult.Action.CANCEL);
  }
}
