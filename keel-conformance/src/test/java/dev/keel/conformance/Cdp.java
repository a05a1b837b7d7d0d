package dev.keel.conformance;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A headless Chromium driven over the Chrome DevTools Protocol with the JDK's own WebSocket:
 * just what a browser test needs (navigate, evaluate, screenshot, emulate media), no library.
 */
final class Cdp implements AutoCloseable {

  private static final McpJson JSON = McpJson.standard();
  private final Process chromium;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();

  private Cdp(Process chromium, Path profile, WebSocket socket) {
    this.chromium = chromium;
    this.profile = profile;
    this.socket = socket;
  }

  /** Starts Chromium on about:blank and attaches to its page. */
  static Cdp launch(Path binary) throws Exception {
    Path profile = Files.createTempDirectory("keel-chromium");
    Process p = new ProcessBuilder(binary.toString(), "--headless=new", "--no-sandbox",
        "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
        "--user-data-dir=" + profile, "--window-size=1280,1500", "about:blank")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(),
        StandardCharsets.UTF_8));
    CompletableFuture<String> browserUrl = new CompletableFuture<>();
    Thread drain = new Thread(() -> {
      try {
        String line;
        while ((line = err.readLine()) != null) {
          int at = line.indexOf("DevTools listening on ");
          if (at >= 0) {
            browserUrl.complete(line.substring(at + "DevTools listening on ".length()).trim());
          }
        }
      } catch (IOException ignored) {
        // the browser went away
      }
      browserUrl.completeExceptionally(new IllegalStateException("chromium exited early"));
    }, "chromium-stderr");
    drain.setDaemon(true);
    drain.start();
    try {
      URI browser = URI.create(browserUrl.get(30, TimeUnit.SECONDS));
      HttpClient http = HttpClient.newHttpClient();
      URI list = URI.create("http://" + browser.getHost() + ":" + browser.getPort() + "/json/list");
      String page = null;
      for (int i = 0; i < 50 && page == null; i++) {
        JsonNode targets = JSON.mapper().readTree(http.send(HttpRequest.newBuilder(list)
            .build(), HttpResponse.BodyHandlers.ofString()).body());
        for (JsonNode t : targets) {
          if (t.path("type").asString("").equals("page")) {
            page = t.get("webSocketDebuggerUrl").asString();
          }
        }
        if (page == null) {
          Thread.sleep(100);
        }
      }
      if (page == null) {
        throw new IllegalStateException("chromium shows no page target");
      }
      Cdp[] self = new Cdp[1];
      WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(page),
          new Listener(self)).get(10, TimeUnit.SECONDS);
      self[0] = new Cdp(p, profile, ws);
      self[0].call("Page.enable", McpJson.object());
      self[0].call("Runtime.enable", McpJson.object());
      return self[0];
    } catch (Exception e) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw e;
    }
  }

  /** Receives the protocol's frames; answers complete their callers, events are ignored. */
  private static final class Listener implements WebSocket.Listener {
    private final Cdp[] self;
    private final StringBuilder partial = new StringBuilder();

    Listener(Cdp[] self) {
      this.self = self;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        JsonNode message = JSON.mapper().readTree(partial.toString());
        partial.setLength(0);
        if (message.has("id") && self[0] != null) {
          CompletableFuture<JsonNode> f = self[0].waiting.remove(message.get("id").asLong());
          if (f != null) {
            f.complete(message);
          }
        }
      }
      ws.request(1);
      return null;
    }
  }

  /** Calls a protocol method and returns its result. */
  JsonNode call(String method, ObjectNode params) throws Exception {
    long id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    waiting.put(id, answer);
    ObjectNode msg = McpJson.object().put("id", id).put("method", method);
    msg.set("params", params);
    socket.sendText(msg.toString(), true).get(10, TimeUnit.SECONDS);
    JsonNode reply = answer.get(30, TimeUnit.SECONDS);
    if (reply.has("error")) {
      throw new IllegalStateException(method + " failed: " + reply.get("error"));
    }
    return reply.get("result");
  }

  void navigate(String url) throws Exception {
    call("Page.navigate", McpJson.object().put("url", url));
  }

  /** Evaluates {@code expression} in the page (awaiting a promise) and returns its value. */
  JsonNode eval(String expression) throws Exception {
    JsonNode r = call("Runtime.evaluate", McpJson.object().put("expression", expression)
        .put("returnByValue", true).put("awaitPromise", true));
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException("page threw: " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  boolean truthy(String expression) {
    try {
      return eval(expression).asBoolean(false);
    } catch (Exception e) {
      return false; // mid-navigation: no context to evaluate in yet
    }
  }

  /** Polls until {@code condition} holds or fails after {@code timeout}. */
  static void until(Duration timeout, String what, BooleanSupplier condition)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }

  void darkMode(boolean dark) throws Exception {
    ObjectNode params = McpJson.object().put("media", "");
    params.putArray("features").addObject().put("name", "prefers-color-scheme")
        .put("value", dark ? "dark" : "light");
    call("Emulation.setEmulatedMedia", params);
  }

  void viewport(int width, int height) throws Exception {
    call("Emulation.setDeviceMetricsOverride", McpJson.object().put("width", width)
        .put("height", height).put("deviceScaleFactor", 1).put("mobile", false));
  }

  /** Saves a PNG of the whole page. */
  void screenshot(Path file) throws Exception {
    JsonNode metrics = call("Page.getLayoutMetrics", McpJson.object());
    JsonNode size = metrics.path("cssContentSize");
    ObjectNode params = McpJson.object().put("format", "png").put("captureBeyondViewport", true);
    params.putObject("clip").put("x", 0).put("y", 0)
        .put("width", size.path("width").asDouble(1280))
        .put("height", Math.min(4000, size.path("height").asDouble(1500))).put("scale", 1);
    String data = call("Page.captureScreenshot", params).get("data").asString();
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, Base64.getDecoder().decode(data));
  }

  @Override
  public void close() throws Exception {
    try {
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(2, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the browser is killed next anyway
    }
    List<ProcessHandle> children = chromium.descendants().toList();
    chromium.destroy();
    if (!chromium.waitFor(5, TimeUnit.SECONDS)) {
      chromium.destroyForcibly();
    }
    children.forEach(ProcessHandle::destroyForcibly);
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
