package dev.keel.mcp.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Hashing for owner fingerprints and token cache keys, so that no raw identity, secret or token
 * is kept as a key.
 */
public final class Fingerprints {

  private Fingerprints() {}

  /** Returns the first 32 hex digits of the SHA-256 of {@code value}. */
  public static String sha256Prefix(String value) {
    return sha256(value).substring(0, 32);
  }

  /** Returns the hex SHA-256 of {@code value}. */
  public static String sha256(String value) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
