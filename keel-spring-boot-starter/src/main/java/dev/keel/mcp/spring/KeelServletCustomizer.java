package dev.keel.mcp.spring;

import dev.keel.mcp.http.McpServlet;

/**
 * Adjusts the {@link McpServlet.Builder} the starter mounts: a rate limiter, an event store, a
 * fingerprint resolver, anything the {@code keel.mcp.*} properties do not cover. Every bean of
 * this type is applied, in {@code @Order}, after the properties and the authenticator.
 *
 * <pre>{@code
 * @Bean
 * KeelServletCustomizer rateLimit() {
 *   return servlet -> servlet.rateLimiter(RateLimiter.perClientAddress(10, 20));
 * }
 * }</pre>
 *
 * <p>Runs once, on the thread that creates the servlet registration, before the servlet is
 * built.
 */
@FunctionalInterface
public interface KeelServletCustomizer {

  /** Adjusts {@code builder}. */
  void customize(McpServlet.Builder builder);
}
