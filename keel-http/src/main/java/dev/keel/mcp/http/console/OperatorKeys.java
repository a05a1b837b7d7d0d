package dev.keel.mcp.http.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The operators' secrets, kept only as salted SHA-256 hashes. A presented secret is hashed
 * once and compared with every operator's hash in constant time, so neither a name nor a
 * prefix leaks through timing.
 */
final class OperatorKeys {

  private final byte[] salt = new byte[32];
  private final Map<String, byte[]> hashes = new LinkedHashMap<>();

  OperatorKeys(Map<String, String> secrets) {
    new SecureRandom().nextBytes(salt);
    secrets.forEach((name, secret) -> hashes.put(name, hash(secret)));
  }

  /** Returns the operator whose secret this is. */
  Optional<String> operator(String secret) {
    if (secret == null || secret.isEmpty() || secret.length() > 1024) {
      return Optional.empty();
    }
    byte[] presented = hash(secret);
    String found = null;
    for (Map.Entry<String, byte[]> e : hashes.entrySet()) {
      // no early exit: every hash is compared whatever matched
      if (MessageDigest.isEqual(presented, e.getValue()) && found == null) {
        found = e.getKey();
      }
    }
    return Optional.ofNullable(found);
  }

  private byte[] hash(String secret) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      return sha.digest(secret.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }
}
