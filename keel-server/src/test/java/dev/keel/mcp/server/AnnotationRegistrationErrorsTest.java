package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.Prompt;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything an annotated class can get wrong fails {@code build()} with an
 * IllegalArgumentException whose message names the class and the method, never a surprise at
 * the first call.
 */
class AnnotationRegistrationErrorsTest {

  record Point(int x, int y) {}

  enum Level { LOW, HIGH }

  /** A bean Jackson cannot create: no no-argument constructor, no creator. */
  static final class Stubborn {
    public String value;

    Stubborn(String value) {
      this.value = value;
    }
  }

  private static void assertRefused(Object instance, String method, String... parts) {
    assertRefused(b -> b.annotated(instance), instance.getClass().getName() + "." + method,
        parts);
  }

  private static void assertRefused(Consumer<McpServer.Builder> register, String where,
      String... parts) {
    McpServer.Builder builder = McpServer.builder();
    register.accept(builder);
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(where + ": ")
        .satisfies(e -> assertThat(e.getMessage()).contains(parts));
  }

  // --- compiled without -parameters

  @Test
  void parametersWithoutNamesAreRefusedForToolsPromptsAndTemplates(@TempDir Path dir)
      throws Exception {
    Class<?> type = compileWithoutParameters(dir, "gen.NoNames", """
        package gen;
        import dev.keel.mcp.server.*;
        public class NoNames {
          @McpTool public String greet(String name) { return name; }
        }
        """);
    assertThat(type.getMethod("greet", String.class).getParameters()[0].isNamePresent())
        .as("compiled without -parameters").isFalse();
    assertRefused(type.getConstructor().newInstance(), "greet", "parameter arg0 has no name",
        "compile with -parameters", "@ToolParam(name = ...)");

    Class<?> prompt = compileWithoutParameters(dir, "gen.NoPromptNames", """
        package gen;
        import dev.keel.mcp.server.*;
        public class NoPromptNames {
          @McpPrompt public String ask(String topic) { return topic; }
        }
        """);
    assertRefused(prompt.getConstructor().newInstance(), "ask", "parameter arg0 has no name",
        "@PromptArg(name = ...)");

    Class<?> template = compileWithoutParameters(dir, "gen.NoVariableNames", """
        package gen;
        import dev.keel.mcp.server.*;
        public class NoVariableNames {
          @McpResource(uri = "x://{id}") public String read(String id) { return id; }
        }
        """);
    assertRefused(template.getConstructor().newInstance(), "read", "parameter arg0 has no name",
        "@UriVariable");
  }

  @Test
  void namesGivenByAnnotationsNeedNoParametersFlag(@TempDir Path dir) throws Exception {
    Class<?> type = compileWithoutParameters(dir, "gen.Named", """
        package gen;
        import dev.keel.mcp.server.*;
        public class Named {
          @McpTool public String greet(@ToolParam(name = "name") String name) { return name; }
          @McpPrompt public String ask(@PromptArg(name = "topic") String topic) { return topic; }
          @McpResource(uri = "x://{id}")
          public String read(@UriVariable("id") String id) { return id; }
        }
        """);
    try (McpServer server = McpServer.builder().annotated(type.getConstructor().newInstance())
        .build()) {
      assertThat(server.capabilities().tools()).isNotNull();
    }
  }

  /** Compiles one class the way a build without {@code -parameters} does, and loads it. */
  private static Class<?> compileWithoutParameters(Path dir, String name, String source)
      throws Exception {
    Path file = dir.resolve(name.replace('.', '/') + ".java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String annotations = Path.of(McpTool.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status = javac.run(null, null, errors, "--release", "17", "-classpath", annotations,
        "-d", dir.toString(), file.toString());
    assertThat(status).as(errors.toString(StandardCharsets.UTF_8)).isZero();
    URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
        AnnotationRegistrationErrorsTest.class.getClassLoader());
    return loader.loadClass(name);
  }

  // --- unsupported types

  static final class ThreadTool {
    @McpTool
    String run(Thread thread) {
      return "";
    }
  }

  static final class ThreadResult {
    @McpTool
    Thread run() {
      return null;
    }
  }

  static final class StubbornTool {
    @McpTool
    String run(Stubborn value) {
      return "";
    }
  }

  static final class ListPrompt {
    @McpPrompt
    String ask(List<String> topics) {
      return "";
    }
  }

  static final class IntPrompt {
    @McpPrompt
    int ask() {
      return 1;
    }
  }

  static final class RecordVariable {
    @McpResource(uri = "points://{point}")
    String read(Point point) {
      return "";
    }
  }

  static final class VoidResource {
    @McpResource(uri = "x://nothing")
    void read() {}
  }

  static final class ThreadResource {
    @McpResource(uri = "x://thread")
    Thread read() {
      return null;
    }
  }

  static final class StringCompletion {
    @McpPrompt
    String ask(String topic) {
      return topic;
    }

    @McpCompletion(prompt = "ask", argument = "topic")
    String complete(String prefix) {
      return prefix;
    }
  }

  static final class IntCompletionParameter {
    @McpPrompt
    String ask(String topic) {
      return topic;
    }

    @McpCompletion(prompt = "ask", argument = "topic")
    List<String> complete(int prefix) {
      return List.of();
    }
  }

  @Test
  void unsupportedParameterTypesAreRefused() {
    assertRefused(new ThreadTool(), "run", "parameter thread", "no JSON Schema",
        "java.lang.Thread");
    assertRefused(new StubbornTool(), "run", "parameter value", "cannot be created from JSON",
        "@JsonCreator");
    assertRefused(new ListPrompt(), "ask", "parameter topics", "a prompt argument is text");
    assertRefused(new RecordVariable(), "read", "parameter point",
        "a URI variable binds to String");
    assertRefused(new IntCompletionParameter(), "complete", "parameter prefix has type int");
  }

  @Test
  void unsupportedReturnTypesAreRefused() {
    assertRefused(new ThreadResult(), "run", "return type", "no JSON Schema");
    assertRefused(new IntPrompt(), "ask", "a prompt returns String, PromptMessage");
    assertRefused(new VoidResource(), "read", "a resource must return its contents");
    assertRefused(new ThreadResource(), "read", "return type", "no JSON Schema");
    assertRefused(new StringCompletion(), "complete",
        "a completion returns Completion or List<String>, not java.lang.String");
  }

  // --- names

  static final class TwinTools {
    @McpTool(name = "same")
    String a() {
      return "";
    }

    @McpTool(name = "same")
    String b() {
      return "";
    }
  }

  static final class TwinParameters {
    @McpTool
    String run(@ToolParam(name = "x") String a, @ToolParam(name = "x") String b) {
      return "";
    }
  }

  static final class OnePrompt {
    @McpPrompt(name = "greet")
    String greet() {
      return "hi";
    }
  }

  static final class TwoKinds {
    @McpTool
    @McpPrompt
    String both() {
      return "";
    }
  }

  static final class NothingAnnotated {
    String plain() {
      return "";
    }
  }

  @Test
  void duplicateNamesAreRefusedNamingBothMethods() {
    assertRefused(new TwinTools(), "b", "tool same is already declared by "
        + TwinTools.class.getName() + ".a");
    assertRefused(new TwinParameters(), "run", "two parameters are named x");
    // across registrations the message names the method that came second
    assertRefused(b -> b.annotated(new OnePrompt()).annotated(new OnePrompt()),
        "prompt registered twice", "greet", "(by " + OnePrompt.class.getName() + ".greet)");
    assertRefused(b -> b.prompt(Prompt.of("greet", "by hand"), (ctx, args) -> null)
            .annotated(new OnePrompt()), "prompt registered twice", "greet");
    assertRefused(new TwoKinds(), "both", "one method is one feature", "@McpTool",
        "@McpPrompt");
    assertThatThrownBy(() -> McpServer.builder().annotated(new NothingAnnotated()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(NothingAnnotated.class.getName()
            + " has no @McpTool, @McpResource, @McpPrompt or @McpCompletion methods");
  }

  // --- templates

  static final class MissingParameter {
    @McpResource(uri = "db://{schema}/{table}")
    String read(String schema) {
      return "";
    }
  }

  static final class ExtraParameter {
    @McpResource(uri = "db://{table}")
    String read(String table, String column) {
      return "";
    }
  }

  static final class FixedWithParameter {
    @McpResource(uri = "db://all")
    String read(String table) {
      return "";
    }
  }

  static final class LevelTwo {
    @McpResource(uri = "files://{+path}")
    String read(String path) {
      return "";
    }
  }

  static final class TwinVariables {
    @McpResource(uri = "db://{table}")
    String read(String table, @UriVariable("table") String again) {
      return "";
    }
  }

  @Test
  void templateVariablesAndParametersMustMatch() {
    assertRefused(new MissingParameter(), "read",
        "the URI template variable {table} of db://{schema}/{table} has no parameter");
    assertRefused(new ExtraParameter(), "read", "parameter column is no variable of db://{table}");
    assertRefused(new FixedWithParameter(), "read", "fixed URI db://all takes no parameters");
    assertRefused(new LevelTwo(), "read", "only level-1 {name} variables are supported");
    assertRefused(new TwinVariables(), "read", "two parameters are bound to {table}");
  }

  // --- defaults

  static final class BadIntDefault {
    @McpTool
    String run(@ToolParam(defaultValue = "ten") int count) {
      return "";
    }
  }

  static final class BadEnumDefault {
    @McpTool
    String run(@ToolParam(defaultValue = "MEDIUM") Level level) {
      return "";
    }
  }

  static final class BadPromptDefault {
    @McpPrompt
    String ask(@PromptArg(defaultValue = "many") int count) {
      return "";
    }
  }

  @Test
  void defaultsThatDoNotFitTheirTypeAreRefused() {
    assertRefused(new BadIntDefault(), "run", "default value ten of count does not fit its type");
    assertRefused(new BadEnumDefault(), "run", "default value MEDIUM of level");
    assertRefused(new BadPromptDefault(), "ask", "default value many of count is no int");
  }

  // --- completions

  static final class CompletesUnknownPrompt {
    @McpCompletion(prompt = "nowhere", argument = "x")
    List<String> complete(String prefix) {
      return List.of();
    }
  }

  static final class CompletesUndeclaredArgument {
    @McpPrompt
    String ask(String topic) {
      return topic;
    }

    @McpCompletion(prompt = "ask", argument = "colour")
    List<String> complete(String prefix) {
      return List.of();
    }
  }

  static final class CompletesTwice {
    @McpPrompt
    String ask(String topic) {
      return topic;
    }

    @McpCompletion(prompt = "ask", argument = "topic")
    List<String> one(String prefix) {
      return List.of();
    }

    @McpCompletion(prompt = "ask", argument = "topic")
    List<String> two(String prefix) {
      return List.of();
    }
  }

  static final class CompletesBoth {
    @McpCompletion(prompt = "ask", resource = "x://{y}", argument = "y")
    List<String> complete(String prefix) {
      return List.of();
    }
  }

  static final class CompletesTemplateLater {
    @McpCompletion(resource = "db://{table}", argument = "table")
    List<String> complete(String prefix) {
      return List.of("orders");
    }
  }

  @Test
  void completionsMustNameARegisteredArgumentOnce() {
    assertRefused(new CompletesUnknownPrompt(), "complete",
        "completes an argument of prompt nowhere, which is not registered");
    assertRefused(new CompletesUndeclaredArgument(), "complete",
        "prompt ask has no argument colour (it has [topic])");
    assertRefused(new CompletesTwice(), "two",
        "completion of topic of prompt ask is already declared by "
            + CompletesTwice.class.getName() + ".one");
    assertRefused(new CompletesBoth(), "complete", "exactly one of prompt and resource");
    assertRefused(b -> b.annotated(new StringPromptOnly()).annotated(new CompletesOnlyTopic())
            .completion(new CompletionReference.PromptRef("ask"), (ctx, r) -> Completion.empty()),
        "completion registered twice", "prompt ask");
  }

  @Test
  void aCompletionMayNameATemplateRegisteredAfterItByHand() {
    try (McpServer server = McpServer.builder().annotated(new CompletesTemplateLater())
        .resourceTemplate(dev.keel.mcp.core.schema.ResourceTemplate.of("db://{table}", "table",
            null, null), (ctx, uri, vars) -> null)
        .build()) {
      assertThat(server.capabilities().completions()).isNotNull();
    }
  }

  static final class StringPromptOnly {
    @McpPrompt(name = "ask")
    String ask(String topic) {
      return topic;
    }
  }

  static final class CompletesOnlyTopic {
    @McpCompletion(prompt = "ask", argument = "topic")
    List<String> complete(String prefix) {
      return List.of();
    }
  }
}
