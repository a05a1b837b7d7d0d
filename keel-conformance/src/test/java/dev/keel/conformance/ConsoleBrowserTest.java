package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.console.Console;
import dev.keel.mcp.redis.DebianPackages;
import dev.keel.mcp.server.McpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator console in a real browser (Done item 1 of issue 20): headless Chromium signs in
 * through the form, sees a client's {@code test_sleep} call in flight, clicks its Cancel
 * button, and sees it end as cancelled while the Keel client gets
 * {@link RequestCancelledException}; the same for a task. Screenshots, light and dark, go to
 * {@code target/console-light.png} and {@code target/console-dark.png} (docs/console.md).
 */
@OneJvm
class ConsoleBrowserTest {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final String SECRET = "browser-test-operator-secret";
  static McpServer server;
  static McpHttpServer http;
  static McpClient legacy;
  static McpClient modern;
  static Cdp browser;

  @BeforeAll
  static void start() throws Exception {
    DebianPackages.ensure("chromium", CHROMIUM);
    // one read-only tool, so the try-it panel has a form to show and run
    server = FixtureServer.create(b -> b.tool(dev.keel.mcp.core.schema.Tool.builder("lookup")
            .description("Looks a region up (read-only)")
            .inputSchema("{\"type\":\"object\",\"properties\":{"
                + "\"region\":{\"type\":\"string\",\"enum\":[\"north\",\"south\"]},"
                + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"default\":10},"
                + "\"exact\":{\"type\":\"boolean\"}},\"required\":[\"region\"]}")
            .annotations(dev.keel.mcp.core.schema.ToolAnnotations.readOnly()).build(),
        (ctx, args) -> dev.keel.mcp.core.schema.CallToolResult.text("region "
            + args.path("region").asString("") + " for " + ctx.principal().id())));
    http = McpHttpServer.builder(server).host("127.0.0.1")
        .console(Console.builder().operator("alice", SECRET)
            .panel("Recent statements", () -> List.of(
                row("12:00:03", "DELETE FROM regions", "refused", true),
                row("12:00:01", "SELECT name FROM regions", "ran", false)))
            .build())
        .start();
    legacy = McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(Era.LEGACY).requestTimeout(Duration.ofSeconds(60)).connect();
    modern = McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(Era.MODERN).requestTimeout(Duration.ofSeconds(60)).connect();
    browser = Cdp.launch(CHROMIUM);
    browser.viewport(1280, 1500);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (legacy != null) {
      legacy.close();
    }
    if (modern != null) {
      modern.close();
    }
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** A row as the agent's panel makes it (keel agent --console). */
  static Map<String, Object> row(String time, String statement, String outcome,
      boolean refused) {
    Map<String, Object> row = new java.util.LinkedHashMap<>();
    row.put("time", time);
    row.put("principal", "analyst");
    row.put("tool", "query");
    row.put("statement", statement);
    row.put("outcome", outcome);
    row.put("highlight", refused);
    return row;
  }

  static String js(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  @Test
  void anOperatorCancelsACallAndATaskFromTheBrowser() throws Exception {
    String url = http.console().orElseThrow().toString();
    browser.navigate(url);
    Cdp.until(Duration.ofSeconds(15), "the login form", () ->
        browser.truthy("!!document.getElementById('secret')"));
    browser.eval("document.getElementById('secret').value=" + js(SECRET)
        + ";document.getElementById('sign-in').click();true");
    try {
      Cdp.until(Duration.ofSeconds(15), "the live console", () ->
          browser.truthy("document.body.dataset.live === 'yes'"
              + " && document.getElementById('operator').textContent === 'alice'"));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; the page: " + browser.eval(
          "location.href + ' | ' + document.body.innerText.slice(0, 400)"), e);
    }

    // some traffic for the charts, then a call that would sleep 30 s and a 30 s task
    for (int i = 0; i < 20; i++) {
      modern.callTool("test_sleep", McpJson.standard().parseObject("{\"ms\":" + (i * 5) + "}"));
    }
    long started = System.nanoTime();
    CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> legacy.callTool(
        "test_sleep", McpJson.standard().parseObject("{\"ms\":30000}"),
        CallOptions.defaults().withTimeout(Duration.ofSeconds(60))));
    Task task = modern.callToolAsTask("slow_compute",
        McpJson.standard().parseObject("{\"seconds\":30,\"label\":\"report\"}"),
        CallOptions.defaults());
    String sleepButton = "document.querySelector('#requests button[aria-label*=\"test_sleep\"]')";
    String taskRow = "Array.from(document.querySelectorAll('#tasks tbody tr')).find(r =>"
        + " r.textContent.includes('slow_compute'))";
    Cdp.until(Duration.ofSeconds(10), "test_sleep in flight", () ->
        browser.truthy("!!" + sleepButton));
    Cdp.until(Duration.ofSeconds(10), "the task working", () ->
        browser.truthy("(" + taskRow + "||{textContent:''}).textContent.includes('working')"));
    Thread.sleep(1200); // one more snapshot: the charts show the calls just made
    browser.screenshot(Path.of("target/console-light.png"));
    browser.darkMode(true);
    Cdp.until(Duration.ofSeconds(5), "dark mode", () ->
        browser.truthy("document.documentElement.dataset.theme === 'dark'"));
    browser.screenshot(Path.of("target/console-dark.png"));
    assertThat(Files.size(Path.of("target/console-light.png"))).isGreaterThan(10_000);

    // the Cancel button of the call
    long clicked = System.nanoTime();
    browser.eval(sleepButton + ".click();true");
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RequestCancelledException.class);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - clicked)).isLessThan(5000);
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(25);
    Cdp.until(Duration.ofSeconds(5), "the call gone and its cancel recorded", () ->
        browser.truthy("!" + sleepButton + " && Array.from(document.querySelectorAll("
            + "'#actions tbody tr')).some(r => r.textContent.includes('cancel-request')"
            + " && r.textContent.includes('cancelled') && r.textContent.includes('alice'))"
            + " && document.getElementById('status').textContent.includes('Cancelled')"));

    // the Cancel button of the task
    browser.eval(taskRow + ".querySelector('button').click();true");
    Cdp.until(Duration.ofSeconds(10), "the task shown cancelled", () ->
        browser.truthy(taskRow + ".textContent.includes('cancelled')"
            + " && !" + taskRow + ".querySelector('button')"));
    assertThat(modern.getTask(task).status()).isEqualTo(Task.Status.CANCELLED);
    assertThatThrownBy(() -> modern.awaitTask(task, Duration.ofSeconds(10)))
        .isInstanceOf(RequestCancelledException.class);
    // try-it: the form generated from the schema, called as the operator
    Cdp.until(Duration.ofSeconds(5), "the try-it form", () ->
        browser.truthy("!!document.getElementById('arg-region')"));
    browser.eval("document.getElementById('arg-region').value='south';"
        + "document.getElementById('try-run').click();true");
    Cdp.until(Duration.ofSeconds(10), "the try-it answer", () ->
        browser.truthy("document.getElementById('try-result').textContent"
            + ".includes('region south for alice')"));
    // the refused statement of the extra panel is highlighted
    assertThat(browser.truthy("Array.from(document.querySelectorAll('#panels tr.highlight'))"
        + ".some(r => r.textContent.includes('DELETE FROM regions'))")).isTrue();
  }
}
