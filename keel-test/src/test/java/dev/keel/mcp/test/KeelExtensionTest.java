package dev.keel.mcp.test;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * The JUnit extension: an {@link McpTest} runs once per era and transport it names, gets its
 * server from the class's {@link McpTestServer} method (a new one per run), the client and the
 * rest injected, and everything it started is stopped afterwards (checked once all ran).
 */
class KeelExtensionTest {

  static final Set<String> RUNS = ConcurrentHashMap.newKeySet();
  static final Set<String> NARROW_RUNS = ConcurrentHashMap.newKeySet();
  static final List<McpServer> MADE = new CopyOnWriteArrayList<>();
  static final List<URI> ENDPOINTS = new CopyOnWriteArrayList<>();

  @McpTestServer
  static McpServer server() {
    McpServer made = KitServer.create();
    MADE.add(made);
    return made;
  }

  @McpTest
  void runsOnceInEveryEraOverEveryTransport(McpTestClient client, Era era,
      TestTransport transport, McpTestTarget target, McpServer server) {
    assertThat(RUNS.add(era + " " + transport)).as("one run per combination").isTrue();
    assertThat(client.era()).isEqualTo(era);
    assertThat(client.transport()).isEqualTo(transport);
    assertThat(target.client()).isSameAs(client);
    assertThat(target.server()).isSameAs(server);
    assertThat(target.toString()).isEqualTo(era.name().toLowerCase() + ", "
        + transport.displayName());
    if (transport == TestTransport.HTTP) {
      ENDPOINTS.add(client.endpoint());
      assertThat(client.endpoint()).isEqualTo(target.endpoint());
    } else {
      assertThat(target.endpoint()).isNull();
    }
    assertThat(client.call("echo", "{\"text\":\"" + era + "\"}")).succeeded()
        .hasText(era.toString());
  }

  @McpTest(eras = Era.MODERN, transports = TestTransport.HTTP)
  void runsOnlyInTheErasAndTransportsItNames(Era era, TestTransport transport) {
    NARROW_RUNS.add(era + " " + transport);
  }

  @McpTest
  void connectsMoreClientsConfiguredByTheTest(McpTestTarget target) {
    McpTestClient asking = target.connect(b -> b.elicitation(Replies.accept("{\"name\":\"Ada\"}")));
    assertThat(asking.era()).isEqualTo(target.era());
    assertThat(asking.call("greet")).succeeded().hasText("Hello, Ada!");
    // The default client declares no elicitation: the server may not ask it.
    assertThat(target.client().call("greet")).failedWith(dev.keel.mcp.core.ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY);
  }

  @Test
  void aClassWithoutAServerSourceIsAConfigurationError() {
    assertThatThrownBy(() -> KeelExtension.serverOf(NoServer.class, new NoServer(), Era.LEGACY,
        TestTransport.IN_MEMORY))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining("exactly one @McpTestServer").hasMessageContaining("has 0");
  }

  @Test
  void aServerSourceThatTakesParametersIsAConfigurationError() {
    assertThatThrownBy(() -> KeelExtension.serverOf(BadSource.class, new BadSource(),
        Era.LEGACY, TestTransport.IN_MEMORY))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining("must take no parameters and return an McpServer");
  }

  @AfterAll
  static void everyRunRanAndEverythingItStartedWasStopped() {
    assertThat(RUNS).containsExactlyInAnyOrder("LEGACY IN_MEMORY", "LEGACY HTTP",
        "MODERN IN_MEMORY", "MODERN HTTP");
    assertThat(NARROW_RUNS).containsExactly("MODERN HTTP");
    assertThat(ENDPOINTS).hasSize(2);
    for (URI endpoint : ENDPOINTS) {
      assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", endpoint.getPort()), 1000);
        throw new AssertionError("still listening after the test: " + endpoint);
      } catch (IOException refused) {
        // stopped, as it should be
      }
    }
    // One server per run that asked for one; each closed: it takes no new session.
    assertThat(MADE).hasSize(4 + 4);
    for (McpServer made : MADE) {
      assertThatThrownBy(() -> McpTestClient.builder(made).era(Era.LEGACY).connect())
          .as("a closed server refuses initialize").isInstanceOf(RuntimeException.class);
    }
  }

  static final class NoServer {}

  static final class BadSource {
    @McpTestServer
    McpServer server(String name) {
      return KitServer.create();
    }
  }
}
