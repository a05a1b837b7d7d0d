/**
 * Keel for Spring Boot: the auto-configuration ({@link dev.keel.mcp.spring.KeelAutoConfiguration})
 * of one MCP server in a Spring Boot 4 application, its {@code keel.*} properties
 * ({@link dev.keel.mcp.spring.KeelProperties}) and the customizer interfaces for what the
 * properties do not cover.
 */
package dev.keel.mcp.spring;
