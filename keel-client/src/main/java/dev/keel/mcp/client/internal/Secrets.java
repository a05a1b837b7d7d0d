package dev.keel.mcp.client.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/** Random values the OAuth flows need (state, PKCE verifier, assertion ids) and PKCE S256. */
public final class Secrets {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {}

  /** Returns {@code bytes} random bytes, base64url without padding. */
  public static String random(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Returns a PKCE code verifier (RFC 7636 §4.1): 43 characters of 256 random bits. */
  public static String codeVerifier() {
    return random(32);
  }

  /** Returns the S256 challenge of {@code verifier}: BASE64URL(SHA-256(verifier)). */
  public static String s256(String verifier) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256")
          .digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
