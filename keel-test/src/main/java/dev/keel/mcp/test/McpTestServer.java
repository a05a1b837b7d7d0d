package dev.keel.mcp.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names where an {@link McpTest} gets the server under test: a method without parameters
 * (static or not) that returns a new {@code McpServer}, called for every run and the server
 * closed after it; or a field holding an {@code McpServer}, shared by the runs and left open
 * (the test owns it). A test class has exactly one, declared on it or a superclass.
 *
 * <pre>{@code
 * @McpTestServer
 * static McpServer server() {
 *   return McpServer.builder().name("demo").version("1").toolsFrom(new Clock()).build();
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD})
public @interface McpTestServer {}
