package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Issue 16, done item 4: {@code keel login} against the real authorization server, its browser
 * part driven headlessly (the printed URL opened, the login form filled, the loopback redirect
 * followed), then {@code keel call} with the tokens it kept, and nothing secret printed.
 */
@OneJvm
class KeelLoginTest {

  private static AuthServerProcess authServer;
  private static KeelProcess keel;
  private static URI endpoint;

  @TempDir
  Path home;

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
    authServer = AuthServerProcess.start(endpoint);
    keel = KeelProcess.fixtures("--port", Integer.toString(port), "--oauth-issuer",
        authServer.issuer().toString(), "--oauth-audience", endpoint.toString(),
        "--oauth-scope", "mcp:tools");
    assertThat(keel.url()).isEqualTo(endpoint.toString());
  }

  @AfterAll
  static void stop() throws Exception {
    if (keel != null) {
      keel.close();
    }
    if (authServer != null) {
      authServer.close();
    }
  }

  @Test
  void loginThenCallUsesTheKeptTokensAndPrintsNoSecret() throws Exception {
    Path store = home.resolve("keel").resolve("tokens.json");
    Run call0 = run(List.of("call", "--token-store", store.toString(), endpoint.toString(),
        "echo", "{\"text\":\"before\"}"), null);
    assertThat(call0.exit()).as("not signed in yet: %s", call0).isNotZero();

    Run login = run(List.of("login", "--client-id", "keel-cli", "--client-secret",
        "keel-cli-secret", "--no-browser", "--timeout", "60", "--token-store", store.toString(),
        endpoint.toString()), url -> BrowserStandIn.signIn(url, "alice", "alice-password",
        redirectUri(url)));
    assertThat(login.exit()).as("%s", login).isZero();
    assertThat(login.out()).contains("logged in to " + endpoint);
    assertThat(login.err()).contains("Open this URL in a browser to sign in:");

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.getParent())))
        .isEqualTo("rwx------");
    JsonNode kept = McpJson.standard().parse(McpJson.standard().parse(
        Files.readString(store)).path("tokens " + endpoint).asString());
    String access = kept.path("access_token").asString();
    String refresh = kept.path("refresh_token").asString();
    assertThat(access).isNotEmpty();
    assertThat(refresh).isNotEmpty();

    Run call = run(List.of("call", "--token-store", store.toString(), endpoint.toString(),
        "echo", "{\"text\":\"signed-in\"}"), null);
    assertThat(call.exit()).as("%s", call).isZero();
    assertThat(call.out()).contains("signed-in");

    for (Run r : List.of(login, call)) {
      assertThat(r.out() + r.err()).as("nothing secret printed")
          .doesNotContain(access).doesNotContain(refresh).doesNotContain("keel-cli-secret")
          .doesNotContain("code=");
    }
  }

  /** The {@code redirect_uri} the authorization request names: the command's listener. */
  private static String redirectUri(URI request) {
    for (String pair : request.getRawQuery().split("&")) {
      if (pair.startsWith("redirect_uri=")) {
        return java.net.URLDecoder.decode(pair.substring(13), StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError("no redirect_uri in " + request);
  }

  /** What a browser does with the printed URL; returns the redirect to follow. */
  interface Browser {
    URI open(URI url) throws Exception;
  }

  record Run(int exit, String out, String err) {}

  /**
   * Runs the keel CLI; with {@code browser}, the URL it prints on stderr is opened and the
   * redirect it ends in is followed to the command's loopback listener.
   */
  private static Run run(List<String> args, Browser browser) throws Exception {
    Process p = new ProcessBuilder(KeelProcess.command(args.toArray(String[]::new))).start();
    // Threads of their own: the common pool may have a single worker on two cores (JDK 25),
    // and the stdout reader would then keep the browser from starting until the command ends.
    java.util.concurrent.ExecutorService readers =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      return run(p, args, browser, readers);
    } finally {
      readers.shutdownNow();
    }
  }

  private static Run run(Process p, List<String> args, Browser browser,
      java.util.concurrent.ExecutorService readers) throws Exception {
    CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p, true), readers);
    List<String> err = new ArrayList<>();
    CompletableFuture<Void> driven = CompletableFuture.runAsync(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getErrorStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          synchronized (err) {
            err.add(line);
          }
          if (browser != null && line.startsWith("  http")) {
            URI redirect = browser.open(URI.create(line.strip()));
            HttpResponse<String> landed = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(redirect).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(landed.statusCode()).isEqualTo(200);
            assertThat(landed.body()).contains("You may close this window");
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, readers);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("keel " + args.get(0) + " did not finish");
    }
    driven.get(10, TimeUnit.SECONDS);
    String joined;
    synchronized (err) {
      joined = String.join("\n", err);
    }
    return new Run(p.exitValue(), out.get(10, TimeUnit.SECONDS), joined);
  }

  private static String read(Process p, boolean stdout) {
    try {
      return new String((stdout ? p.getInputStream() : p.getErrorStream()).readAllBytes(),
          StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
