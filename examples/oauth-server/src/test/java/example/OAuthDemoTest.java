package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.OAuthClientCredentials;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.http.McpHttpServer;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OAuth example against a real authorization server: Keel's test authorization server
 * (Spring Authorization Server, {@code keel-authserver-fixture} of the Keel checkout this
 * example lives in), run as a process on 127.0.0.1. In a project of your own, start your
 * authorization server (Keycloak, for example) instead.
 */
class OAuthDemoTest {

  static Process authServer;
  static URI issuer;
  static McpHttpServer http;

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    Path fixture = Path.of("../../keel-authserver-fixture/target").toAbsolutePath().normalize();
    Path jar;
    try (var files = Files.list(fixture)) {
      jar = files.filter(p -> p.getFileName().toString().endsWith(".jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("build keel-authserver-fixture first"));
    }
    authServer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx256m", "-cp", jar + java.io.File.pathSeparator + fixture.resolve("lib")
        + "/*", "dev.keel.fixture.authserver.AuthServerMain",
        "--keel.resource=http://127.0.0.1:" + port + "/mcp").redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(authServer.getInputStream(),
        StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith("listening on ")) {
        issuer = URI.create(line.substring("listening on ".length()).strip());
        break;
      }
    }
    assertThat(issuer).as("the authorization server started").isNotNull();
    Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "authserver-output");
    drain.setDaemon(true);
    drain.start();
    http = OAuthDemo.start(issuer, port);
  }

  @AfterAll
  static void stop() throws Exception {
    if (http != null) {
      http.close();
    }
    if (authServer != null) {
      authServer.destroy();
      authServer.waitFor(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void aClientWithATokenOfTheAuthorizationServerIsServedAsItsSubject() {
    try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
        .oauth(OAuthClientCredentials.builder("alice", "alice-secret").build())
        .build()).connect()) {
      assertThat(((TextContent) client.callTool("whoami", McpJson.object()).content().get(0))
          .text()).isEqualTo("alice");
    }
  }

  @Test
  void aRequestWithoutATokenIsToldWhereToGetOne() throws Exception {
    HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            http.endpoint()).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
            + "\"ping\"}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow())
        .startsWith("Bearer").contains("resource_metadata=");
  }
}
