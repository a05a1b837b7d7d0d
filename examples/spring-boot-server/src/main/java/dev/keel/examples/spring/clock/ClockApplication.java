package dev.keel.examples.spring.clock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The normal path: a Spring Boot application with one annotated bean ({@link Clock}) and
 * nothing else. The starter finds the bean's {@code @McpTool} methods, builds the server and
 * serves it at {@code /mcp}.
 */
@SpringBootApplication
public class ClockApplication {

  /** Runs the application. */
  public static void main(String[] args) {
    SpringApplication.run(ClockApplication.class, args);
  }
}
