package dev.keel.mcp.spring;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.http.McpServlet;
import dev.keel.mcp.http.OAuthResourceServer;
import dev.keel.mcp.server.McpServer;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The auto-configuration of a Keel MCP server in a Spring Boot application: one
 * {@link McpServer} bean (unless the application defines its own), its {@link McpServlet}
 * mounted at {@code keel.mcp.path} with async support, the principal taken from Spring Security
 * when it is present, a {@code keel} health indicator with Actuator, and Keel's meters with
 * Micrometer.
 *
 * <p>The server is built from the {@code keel.server.*} properties ({@link KeelProperties}),
 * every bean whose class declares Keel-annotated methods such as {@code @McpTool} (each given to
 * {@link McpServer.Builder#toolsFrom}), and every {@link KeelServerCustomizer} bean, in that
 * order ({@link KeelServerConfigurer}). Nothing to write beyond the beans themselves:
 *
 * <pre>{@code
 * @SpringBootApplication
 * public class App {
 *   public static void main(String[] args) {
 *     SpringApplication.run(App.class, args);
 *   }
 * }
 *
 * @Component
 * class Clock {
 *   @McpTool(description = "The current UTC time", readOnly = true)
 *   String now() {
 *     return Instant.now().toString();
 *   }
 * }
 * }</pre>
 *
 * <p>Requests leave the container thread through servlet async and handlers run on Keel's own
 * handler threads (virtual on JDK 21+), so with {@code spring.threads.virtual.enabled=true} the
 * container's threads are virtual as well and nothing here holds a platform thread.
 */
@AutoConfiguration
@EnableConfigurationProperties(KeelProperties.class)
@Import({KeelAutoConfiguration.Web.class, KeelAutoConfiguration.Actuator.class,
    KeelAutoConfiguration.Metrics.class})
public class KeelAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(KeelAutoConfiguration.class);

  /** Creates the auto-configuration; Spring calls it. */
  public KeelAutoConfiguration() {}

  /**
   * Returns what applies the properties, the annotated beans and the customizers to a server
   * builder. Annotated beans and customizers are looked up when a server is configured, not
   * before, so that none is created earlier than needed.
   */
  @Bean
  @ConditionalOnMissingBean
  public KeelServerConfigurer keelServerConfigurer(KeelProperties properties,
      ConfigurableListableBeanFactory beans, ObjectProvider<KeelServerCustomizer> customizers,
      Environment environment) {
    return new KeelServerConfigurer(properties.server(),
        environment.getProperty("spring.application.name"), () -> AnnotatedBeans.in(beans),
        () -> customizers.orderedStream().toList());
  }

  /** Returns the server, unless the application defines an {@code McpServer} bean itself. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(McpServer.class)
  public McpServer keelMcpServer(KeelServerConfigurer configurer) {
    return configurer.build();
  }

  /** The endpoint: {@link McpServlet} in the application's servlet container. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnProperty(prefix = "keel.mcp", name = "enabled", matchIfMissing = true)
  static class Web {

    private static final String SECURITY_CONTEXT =
        "org.springframework.security.core.context.SecurityContextHolder";

    @Bean
    @ConditionalOnMissingBean(name = "keelMcpServlet")
    ServletRegistrationBean<McpServlet> keelMcpServlet(McpServer server,
        KeelProperties properties, ObjectProvider<Authenticator> authenticators,
        ObjectProvider<KeelServletCustomizer> customizers, Environment environment) {
      KeelProperties.Mcp p = properties.mcp();
      boolean loopbackOnly = p.loopbackOnly() != null ? p.loopbackOnly()
          : isLoopback(environment.getProperty("server.address"));
      McpServlet.Builder b = McpServlet.builder(server).path(p.path()).loopbackOnly(loopbackOnly)
          .allowedOrigins(p.allowedOrigins()).allowedHosts(p.allowedHosts())
          .sessions(p.sessions());
      limits(b, p);
      List<String> paths = new ArrayList<>(List.of(p.path()));
      Authenticator own = own(authenticators.orderedStream().toList());
      if (own instanceof OAuthResourceServer oauth) {
        // Keel's resource server also publishes its RFC 9728 metadata: map those paths too.
        b.oauth(oauth);
        paths.addAll(oauth.metadataPaths());
      }
      boolean springSecurity = p.springSecurity()
          && ClassUtils.isPresent(SECURITY_CONTEXT, KeelAutoConfiguration.class.getClassLoader());
      Authenticator fallback = fallback(own, loopbackOnly, p.allowAnonymous(), springSecurity);
      b.authenticator(springSecurity ? new SpringSecurityAuthenticator(fallback) : fallback);
      customizers.orderedStream().forEach(c -> c.customize(b));
      ServletRegistrationBean<McpServlet> registration =
          new ServletRegistrationBean<>(b.build(), paths.toArray(String[]::new));
      registration.setName("keelMcp");
      // Streams and handlers leave the container thread through AsyncContext.
      registration.setAsyncSupported(true);
      registration.setLoadOnStartup(1);
      return registration;
    }

    private static void limits(McpServlet.Builder b, KeelProperties.Mcp p) {
      if (p.maxBodySize() != null) {
        b.maxBodyBytes(KeelServerConfigurer.bytes(p.maxBodySize(), "keel.mcp.max-body-size"));
      }
      if (p.maxListeningStreams() != null) {
        b.maxListeningStreams(p.maxListeningStreams());
      }
      if (p.keepAlive() != null) {
        b.keepAlive(p.keepAlive());
      }
      if (p.retry() != null) {
        b.retry(p.retry());
      }
      if (p.bodyTimeout() != null) {
        b.bodyTimeout(p.bodyTimeout());
      }
      if (p.maxBufferedBodySize() != null) {
        b.maxBufferedBodyBytes(p.maxBufferedBodySize().toBytes());
      }
      if (!p.resumable()) {
        b.eventStore(null);
      }
    }

    /** Several authenticator beans are asked in their order, the first principal winning. */
    private static Authenticator own(List<Authenticator> beans) {
      if (beans.isEmpty()) {
        return null;
      }
      return beans.size() == 1 ? beans.get(0)
          : Authenticator.anyOf(beans.toArray(Authenticator[]::new));
    }

    /**
     * Who a request runs as that Spring Security did not authenticate. Unauthenticated use is
     * the one local principal only where Keel allows it everywhere else: on loopback, or when
     * the operator said so. Otherwise it is refused, and with nothing at all that could
     * authenticate a request the application does not start (the {@code keel} command refuses
     * such a bind the same way).
     */
    private static Authenticator fallback(Authenticator own, boolean loopbackOnly,
        boolean allowAnonymous, boolean springSecurity) {
      if (own != null) {
        return own;
      }
      if (loopbackOnly || allowAnonymous) {
        return Authenticator.local();
      }
      if (springSecurity) {
        LOG.info("Keel: requests Spring Security did not authenticate are refused with 401 "
            + "(server.address is not loopback; keel.mcp.allow-anonymous=true admits them)");
        return request -> Optional.empty();
      }
      throw new IllegalStateException("Keel refuses to serve MCP on a non-loopback address "
          + "without authentication: add Spring Security, define an Authenticator bean, set "
          + "server.address=127.0.0.1, or set keel.mcp.allow-anonymous=true");
    }

    private static boolean isLoopback(String address) {
      if (address == null || address.isBlank()) {
        return false;
      }
      try {
        return InetAddress.getByName(address.strip()).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
  }

  /** {@code /actuator/health}: the {@code keel} component, when Actuator's health is present. */
  @Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.condition.ConditionalOnClass(
      name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class Actuator {

    @Bean
    @ConditionalOnMissingBean(name = "keelHealthIndicator")
    @org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator(
        "keel")
    org.springframework.boot.health.contributor.HealthIndicator keelHealthIndicator(
        ObjectProvider<McpServer> server) {
      return new KeelHealthIndicator(server.getObject());
    }
  }

  /**
   * Keel's meters in the application's {@code MeterRegistry}, when Micrometer and keel-micrometer
   * are present: the request timers through an observer on the starter's builder, and the
   * server's gauges and counters once every singleton exists (so that neither the registry nor
   * the server is created early for the other).
   */
  @Configuration(proxyBeanMethods = false)
  @org.springframework.boot.autoconfigure.condition.ConditionalOnClass(
      name = {"io.micrometer.core.instrument.MeterRegistry",
          "dev.keel.mcp.micrometer.KeelMetrics"})
  static class Metrics {

    @Bean
    @org.springframework.core.annotation.Order(org.springframework.core.Ordered.HIGHEST_PRECEDENCE)
    KeelServerCustomizer keelMetricsObserver(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry) {
      return builder -> registry.ifAvailable(r -> builder.observer(
          dev.keel.mcp.micrometer.KeelMetrics.of(r).serverObserver()));
    }

    @Bean
    org.springframework.beans.factory.SmartInitializingSingleton keelMetricsBinding(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry,
        ObjectProvider<McpServer> server) {
      return () -> registry.ifAvailable(r -> server.ifUnique(
          s -> dev.keel.mcp.micrometer.KeelMetrics.of(r).bind(s)));
    }
  }
}
