package dev.keel.mcp.client.internal;

import dev.keel.mcp.core.McpJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a client proves who it is at a token endpoint: {@code none} (a public client names
 * itself), {@code client_secret_basic}, {@code client_secret_post} or {@code private_key_jwt}
 * (RFC 7523: a short-lived assertion signed with the client's key). The secret and the key
 * leave only in the token request and never appear in a message.
 */
public final class ClientAuth {

  /** The token endpoint authentication methods (RFC 7591 names). */
  public enum Method {
    NONE("none"), CLIENT_SECRET_BASIC("client_secret_basic"),
    CLIENT_SECRET_POST("client_secret_post"), PRIVATE_KEY_JWT("private_key_jwt");

    private final String wireName;

    Method(String wireName) {
      this.wireName = wireName;
    }

    /** Returns the name RFC 7591 gives it. */
    public String wireName() {
      return wireName;
    }

    /** Returns the method named {@code name}, or null. */
    public static Method of(String name) {
      for (Method m : values()) {
        if (m.wireName.equals(name)) {
          return m;
        }
      }
      return null;
    }
  }

  private static final long ASSERTION_SECONDS = 60;

  private final String clientId;
  private final String secret;
  private final Method method;
  private final PrivateKey key;
  private final String algorithm;

  private ClientAuth(String clientId, String secret, Method method, PrivateKey key,
      String algorithm) {
    this.clientId = Objects.requireNonNull(clientId, "clientId");
    this.secret = secret;
    this.method = method;
    this.key = key;
    this.algorithm = algorithm;
  }

  /** A client that authenticates with a secret, by {@code method} (basic or post). */
  public static ClientAuth secret(String clientId, String secret, Method method) {
    return new ClientAuth(clientId, Objects.requireNonNull(secret, "secret"), method, null, null);
  }

  /** A public client: it names itself and proves nothing (PKCE protects its code). */
  public static ClientAuth none(String clientId) {
    return new ClientAuth(clientId, null, Method.NONE, null, null);
  }

  /**
   * A client that signs an assertion with its private key.
   *
   * @param pkcs8Pem the key, PEM-encoded PKCS #8 ({@code -----BEGIN PRIVATE KEY-----})
   * @param algorithm ES256, ES384, RS256 or PS256 ... as the authorization server allows
   */
  public static ClientAuth privateKeyJwt(String clientId, String pkcs8Pem, String algorithm) {
    String alg = algorithm.toUpperCase(Locale.ROOT);
    return new ClientAuth(clientId, null, Method.PRIVATE_KEY_JWT, readKey(pkcs8Pem, alg), alg);
  }

  /**
   * Picks how a client with {@code secret} (or none) authenticates, from what the authorization
   * server supports ({@code supported} null means {@code client_secret_basic}, RFC 8414 §2).
   */
  public static ClientAuth choose(String clientId, String secret, String registered,
      List<String> supported) {
    if (secret == null) {
      return none(clientId);
    }
    Method named = Method.of(registered);
    if (named == Method.NONE) {
      return none(clientId);
    }
    if (named == Method.CLIENT_SECRET_BASIC || named == Method.CLIENT_SECRET_POST) {
      return secret(clientId, secret, named);
    }
    if (supported != null && !supported.contains("client_secret_basic")
        && supported.contains("client_secret_post")) {
      return secret(clientId, secret, Method.CLIENT_SECRET_POST);
    }
    return secret(clientId, secret, Method.CLIENT_SECRET_BASIC);
  }

  /** Returns the client id. */
  public String clientId() {
    return clientId;
  }

  /** Returns the method. */
  public Method method() {
    return method;
  }

  /**
   * Adds this client's authentication to a token request's {@code form}.
   *
   * @param audience the authorization server's issuer, the audience of an assertion
   * @return the value of a Basic {@code Authorization} header, or null
   */
  public String apply(StringBuilder form, String audience) {
    switch (method) {
      case CLIENT_SECRET_BASIC -> {
        return Base64.getEncoder().encodeToString((encode(clientId) + ":" + encode(secret))
            .getBytes(StandardCharsets.UTF_8));
      }
      case CLIENT_SECRET_POST -> form.append("&client_id=").append(encode(clientId))
          .append("&client_secret=").append(encode(secret));
      case PRIVATE_KEY_JWT -> form.append("&client_id=").append(encode(clientId))
          .append("&client_assertion_type=")
          .append(encode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer"))
          .append("&client_assertion=").append(encode(assertion(audience)));
      default -> form.append("&client_id=").append(encode(clientId));
    }
    return null;
  }

  private String assertion(String audience) {
    long now = Instant.now().getEpochSecond();
    ObjectNode header = McpJson.object().put("alg", algorithm).put("typ", "JWT");
    ObjectNode claims = McpJson.object().put("iss", clientId).put("sub", clientId)
        .put("aud", audience).put("iat", now).put("exp", now + ASSERTION_SECONDS)
        .put("jti", Secrets.random(16));
    String signingInput = base64Url(header.toString()) + "." + base64Url(claims.toString());
    try {
      Signature signature = Signature.getInstance(jcaName(algorithm));
      if (algorithm.startsWith("PS")) {
        int bits = Integer.parseInt(algorithm.substring(2));
        signature.setParameter(new java.security.spec.PSSParameterSpec("SHA-" + bits, "MGF1",
            new java.security.spec.MGF1ParameterSpec("SHA-" + bits), bits / 8, 1));
      }
      signature.initSign(key);
      signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
      return signingInput + "." + Base64.getUrlEncoder().withoutPadding()
          .encodeToString(signature.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign the client assertion with " + algorithm
          + ": " + e.getMessage(), e);
    }
  }

  private static String jcaName(String alg) {
    return switch (alg) {
      // P1363 gives the fixed-size R||S that JWS needs (RFC 7518 §3.4), not DER
      case "ES256" -> "SHA256withECDSAinP1363Format";
      case "ES384" -> "SHA384withECDSAinP1363Format";
      case "ES512" -> "SHA512withECDSAinP1363Format";
      case "RS256" -> "SHA256withRSA";
      case "RS384" -> "SHA384withRSA";
      case "RS512" -> "SHA512withRSA";
      case "PS256", "PS384", "PS512" -> "RSASSA-PSS";
      default -> throw new IllegalArgumentException("unsupported signing algorithm " + alg
          + " (ES256/384/512, RS256/384/512, PS256/384/512)");
    };
  }

  private static PrivateKey readKey(String pem, String alg) {
    jcaName(alg);
    String body = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "")
        .replaceAll("\\s", "");
    if (pem.contains("BEGIN EC PRIVATE KEY") || pem.contains("BEGIN RSA PRIVATE KEY")) {
      throw new IllegalArgumentException("the private key must be PKCS #8 "
          + "(-----BEGIN PRIVATE KEY-----)");
    }
    try {
      byte[] der = Base64.getDecoder().decode(body);
      return KeyFactory.getInstance(alg.startsWith("ES") ? "EC" : "RSA")
          .generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the private key for " + alg
          + " (PKCS #8 PEM expected)");
    }
  }

  private static String base64Url(String text) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
