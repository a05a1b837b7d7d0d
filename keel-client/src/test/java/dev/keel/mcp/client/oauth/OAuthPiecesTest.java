package dev.keel.mcp.client.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.OAuthTokenStore;
import dev.keel.mcp.client.OAuthUserStep;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OAuth client's own pieces: the file token store and the loopback redirect listener. */
class OAuthPiecesTest {

  @TempDir
  Path dir;

  @Test
  void theFileStoreIsOwnerOnlyAndRefusesAFileOthersMayRead() throws Exception {
    Path file = dir.resolve("keel").resolve("tokens.json");
    OAuthTokenStore store = OAuthTokenStore.file(file);
    assertThat(store.get("k")).isEmpty();
    store.put("k", "secret-value");
    store.put("other", "x");
    store.remove("other");
    assertThat(OAuthTokenStore.file(file).get("k")).contains("secret-value");
    assertThat(OAuthTokenStore.file(file).get("other")).isEmpty();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
        .isEqualTo("rwx------");
    try (var left = Files.list(file.getParent())) {
      assertThat(left).as("no temporary file left behind").containsExactly(file);
    }

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> OAuthTokenStore.file(file))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chmod 600");
  }

  @Test
  void theLoopbackListenerAnswersOnlyItsCallbackAndReturnsTheRedirect() throws Exception {
    AtomicReference<URI> shown = new AtomicReference<>();
    OAuthUserStep step = OAuthUserStep.loopback(shown::set, Duration.ofSeconds(20));
    URI redirect = step.redirectUri();
    assertThat(redirect.getHost()).isEqualTo("127.0.0.1");
    assertThat(redirect.getPath()).isEqualTo("/callback");
    URI request = URI.create("https://as.example/authorize?state=s");
    CompletableFuture<URI> back = CompletableFuture.supplyAsync(() -> step.authorize(request));
    HttpClient http = HttpClient.newHttpClient();
    URI other = redirect.resolve("/favicon.ico");
    HttpResponse<String> stray = null;
    for (int i = 0; i < 50 && stray == null; i++) {
      try {
        stray = http.send(HttpRequest.newBuilder(other).GET().build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (java.io.IOException notYet) {
        Thread.sleep(100);
      }
    }
    assertThat(stray).isNotNull();
    assertThat(stray.statusCode()).isEqualTo(404);
    HttpResponse<String> landed = http.send(HttpRequest.newBuilder(
        URI.create(redirect + "?code=abc&state=s")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(landed.statusCode()).isEqualTo(200);
    assertThat(landed.headers().firstValue("Cache-Control")).contains("no-store");
    URI result = back.get(10, TimeUnit.SECONDS);
    assertThat(result.getQuery()).isEqualTo("code=abc&state=s");
    assertThat(shown.get()).isEqualTo(request);
  }

  @Test
  void theLoopbackListenerGivesUpAfterItsTimeout() {
    OAuthUserStep step = OAuthUserStep.loopback(url -> { }, Duration.ofMillis(300));
    step.redirectUri();
    assertThatThrownBy(() -> step.authorize(URI.create("https://as.example/authorize")))
        .hasMessageContaining("no redirect came back");
  }

  @Test
  void urlsAServerNamesMustBeHttpsToPublicAddressesOrLoopback() {
    for (String refused : new String[] {"http://93.184.215.14/token", "https://10.1.2.3/token",
        "https://192.168.0.1/token", "https://169.254.169.254/latest/meta-data",
        "https://[fd00::1]/token", "https://[fe80::1]/token", "https://0.0.0.0/token",
        "ftp://127.0.0.1/token"}) {
      assertThatThrownBy(() -> dev.keel.mcp.client.internal.OAuthDiscovery.requireSafe(
          URI.create(refused))).as(refused).isInstanceOf(IllegalArgumentException.class);
    }
    dev.keel.mcp.client.internal.OAuthDiscovery.requireSafe(
        URI.create("http://127.0.0.1:8080/token"));
    dev.keel.mcp.client.internal.OAuthDiscovery.requireSafe(
        URI.create("https://93.184.215.14/token"));
  }

  @Test
  void privateNetworksAreReachableOnlyWhenAllowedAndOnlyOverHttps() {
    URI internal = URI.create("https://10.1.2.3/realms/corp");
    assertThatThrownBy(() -> new dev.keel.mcp.client.internal.OAuthDiscovery(
        Duration.ofSeconds(1)).guard(internal)).isInstanceOf(IllegalArgumentException.class);
    dev.keel.mcp.client.internal.OAuthDiscovery allowed =
        new dev.keel.mcp.client.internal.OAuthDiscovery(Duration.ofSeconds(1), true);
    allowed.guard(internal);
    assertThatThrownBy(() -> allowed.guard(URI.create("http://10.1.2.3/realms/corp")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
