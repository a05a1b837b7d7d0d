package dev.keel.mcp.test;

import dev.keel.mcp.client.Era;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test of an MCP server that runs once per era and transport: by default four times
 * (legacy and 2026-07-28, in-memory and over HTTP). The server comes from the test class's
 * {@link McpTestServer} method or field; each run starts it as its transport needs, injects a
 * connected {@link McpTestClient} (and, when asked for, the {@link McpTestTarget}, the
 * {@code McpServer}, the {@link Era} and the {@link TestTransport}) and stops everything
 * afterwards.
 *
 * <pre>{@code
 * class EchoTest {
 *   @McpTestServer
 *   static McpServer server() {
 *     return Demo.server();
 *   }
 *
 *   @McpTest
 *   void echoes(McpTestClient client) {
 *     assertThat(client.call("echo", "{\"text\":\"hi\"}")).succeeded().hasText("hi");
 *   }
 *
 *   @McpTest(eras = Era.LEGACY, transports = TestTransport.HTTP)
 *   void onlyOverALegacySession(McpTestClient client) { ... }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@TestTemplate
@ExtendWith(KeelExtension.class)
public @interface McpTest {

  /** The eras to run in: {@link Era#LEGACY} and {@link Era#MODERN} (AUTO is not an era). */
  Era[] eras() default {Era.LEGACY, Era.MODERN};

  /** The transports to run over. */
  TestTransport[] transports() default {TestTransport.IN_MEMORY, TestTransport.HTTP};
}
