package dev.keel.mcp.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.server.McpServer;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who a request runs as: Spring Security's OAuth resource server (a real JWT, signed here),
 * an {@code Authenticator} bean, and the refusal to serve a network without either; and an
 * application's own {@code McpServer} bean, which the starter serves instead of building one.
 */
class PrincipalsTest {

  static final RSAKey KEY;

  static {
    try {
      KEY = new RSAKeyGenerator(2048).keyID("test").generate();
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Spring Security's resource server guards everything; tokens are this test's JWTs. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  static class JwtSecurity {
    @Bean
    SecurityFilterChain jwt(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
          .oauth2ResourceServer(o -> o.jwt(Customizer.withDefaults())).build();
    }

    @Bean
    JwtDecoder decoder() throws Exception {
      return NimbusJwtDecoder.withPublicKey(KEY.toRSAPublicKey()).build();
    }
  }

  /** An authenticator of Keel's own: static API keys. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  static class ApiKeys {
    @Bean
    Authenticator apiKeys() {
      return Authenticator.bearerTokens(Map.of("s3cret", "bob"));
    }
  }

  /** An application that builds its server itself. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  static class OwnServer {
    @Bean
    McpServer own(KeelServerConfigurer keel) {
      McpServer.Builder b = McpServer.builder().name("own");
      keel.configure(b);
      return b.tool(Tool.builder("mine").inputSchema("{\"type\":\"object\"}").build(),
          (ctx, args) -> CallToolResult.text("mine")).build();
    }
  }

  static String token(String subject, String scope) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("test").build(),
        new JWTClaimsSet.Builder().issuer("https://issuer.test").subject(subject)
            .claim("scope", scope).expirationTime(Date.from(Instant.now().plusSeconds(300)))
            .build());
    jwt.sign(new RSASSASigner(KEY));
    return jwt.serialize();
  }

  @Test
  void aJwtSpringSecurityVerifiedIsThePrincipalWithItsSubjectAndScopes() throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, JwtSecurity.class))) {
      String alice = token("alice", "mcp:tools mcp:read");
      for (Era era : List.of(Era.LEGACY, Era.MODERN)) {
        try (McpClient client = Apps.client(app, "/mcp", era, t -> t.bearer(alice))) {
          assertThat(Apps.call(client, "whoami", "{}")).isEqualTo("alice [mcp:read, mcp:tools]");
        }
      }
      // No token: Spring Security answers before Keel is reached.
      assertThat(Apps.post(app, "/mcp", "{}").statusCode()).isEqualTo(401);
      // Same owner whichever checked the token: the fingerprint Keel's OAuthResourceServer uses.
      assertThat(SpringSecurityAuthenticator.sha256Prefix("https://issuer.test\nalice"))
          .isEqualTo(dev.keel.mcp.http.internal.Fingerprints.sha256Prefix(
              "https://issuer.test\nalice"));
    }
  }

  @Test
  void anAuthenticatorBeanDecidesWhenSpringSecurityIsLeftOut() throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class, ApiKeys.class),
        "keel.mcp.spring-security=false")) {
      try (McpClient client = Apps.client(app, "/mcp", Era.LEGACY, t -> t.bearer("s3cret"))) {
        assertThat(Apps.call(client, "whoami", "{}")).isEqualTo("bob -");
      }
      assertThat(Apps.post(app, "/mcp", "{}").statusCode()).isEqualTo(401);
    }
  }

  @Test
  void aNetworkBindWithNothingToAuthenticateDoesNotStart() {
    assertThatThrownBy(() -> Apps.start(List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class),
        "keel.mcp.loopback-only=false", "keel.mcp.spring-security=false").close())
        .hasStackTraceContaining("Keel refuses to serve MCP on a non-loopback address");
  }

  @Test
  void requestsSpringSecurityLetThroughAnonymouslyAreRefusedOffLoopback() throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class), "keel.mcp.loopback-only=false")) {
      assertThat(Apps.post(app, "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
          .statusCode()).isEqualTo(401);
    }
  }

  @Test
  void anApplicationsOwnServerIsServedWithTheStartersConfiguration() throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class, OwnServer.class),
        "keel.server.version=9.9.9")) {
      assertThat(app.getBeansOfType(McpServer.class)).containsOnlyKeys("own");
      try (McpClient client = Apps.client(app, "/mcp", Era.MODERN, t -> { })) {
        assertThat(client.serverInfo().name()).isEqualTo("own");
        assertThat(client.serverInfo().version()).isEqualTo("9.9.9");
        assertThat(client.listTools()).extracting(Tool::name)
            .contains("mine", "whoami", "echo");
      }
    }
  }
}
