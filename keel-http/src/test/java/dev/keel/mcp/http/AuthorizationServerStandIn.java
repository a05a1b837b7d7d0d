package dev.keel.mcp.http;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * The signing side of an authorization server, on a real Jetty on loopback: RFC 8414 metadata
 * and a JWKS, and tokens signed with its current key. It stands in for the unit tests of the
 * resource server's validation, which need forged and expired tokens an authorization server
 * would never issue; the end-to-end tests run against a real authorization server.
 */
final class AuthorizationServerStandIn implements AutoCloseable {

  private final Server jetty = new Server();
  private final List<RSAKey> keys = new CopyOnWriteArrayList<>();
  final AtomicInteger jwksFetches = new AtomicInteger();
  final AtomicInteger metadataFetches = new AtomicInteger();
  final URI issuer;

  AuthorizationServerStandIn() throws Exception {
    keys.add(newKey("key-1"));
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    jetty.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        String body;
        if (path.equals("/.well-known/oauth-authorization-server/realm")) {
          metadataFetches.incrementAndGet();
          body = "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + issuer + "/jwks\"}";
        } else if (path.equals("/realm/jwks")) {
          jwksFetches.incrementAndGet();
          body = new JWKSet(List.copyOf(keys)).toPublicJWKSet().toString();
        } else {
          response.setStatus(404);
          callback.succeeded();
          return true;
        }
        response.setStatus(200);
        response.getHeaders().put("Content-Type", "application/json");
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
    });
    jetty.start();
    issuer = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/realm");
  }

  static RSAKey newKey(String kid) throws JOSEException {
    return new RSAKeyGenerator(2048).keyID(kid).generate();
  }

  /** Signs the next tokens with a new key, published alongside the old one. */
  RSAKey rotate(String kid) throws JOSEException {
    RSAKey key = newKey(kid);
    keys.add(0, key);
    return key;
  }

  RSAKey currentKey() {
    return keys.get(0);
  }

  /** A valid token for {@code audience} and {@code subject} with {@code scope}. */
  String token(String subject, String audience, String scope) throws JOSEException {
    return token(subject, audience, scope, UnaryOperator.identity());
  }

  /** A token whose claims {@code change} adjusts, signed with the current key. */
  String token(String subject, String audience, String scope,
      UnaryOperator<JWTClaimsSet.Builder> change) throws JOSEException {
    return sign(currentKey(), claims(subject, audience, scope, change));
  }

  JWTClaimsSet claims(String subject, String audience, String scope,
      UnaryOperator<JWTClaimsSet.Builder> change) {
    Instant now = Instant.now();
    JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().issuer(issuer.toString())
        .subject(subject).audience(audience).issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(300))).claim("scope", scope)
        .claim("client_id", "test-client");
    return change.apply(b).build();
  }

  static String sign(RSAKey key, JWTClaimsSet claims) throws JOSEException {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256)
        .keyID(key.getKeyID()).type(new JOSEObjectType("at+jwt")).build(), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
  }
}
