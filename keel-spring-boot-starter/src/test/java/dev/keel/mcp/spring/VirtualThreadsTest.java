package dev.keel.mcp.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With {@code spring.threads.virtual.enabled=true} handlers run on virtual threads wherever the
 * JVM has them: the starter hands Keel no executor of its own. On a JDK before 21 the same
 * application runs, on Keel's bounded pool of platform threads.
 */
class VirtualThreadsTest {

  @Test
  void handlersRunOnVirtualThreadsWhereTheJvmHasThem() throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class),
        "spring.threads.virtual.enabled=true")) {
      try (McpClient client = Apps.client(app, "/mcp", Era.MODERN, t -> { })) {
        String thread = Apps.call(client, "thread", "{}");
        // VirtualThread's toString starts with "VirtualThread[#"; a platform thread's "Thread[".
        if (Runtime.version().feature() >= 21) {
          assertThat(thread).startsWith("VirtualThread[");
        } else {
          assertThat(thread).startsWith("Thread[").contains("keel-handler");
        }
      }
    }
  }
}
