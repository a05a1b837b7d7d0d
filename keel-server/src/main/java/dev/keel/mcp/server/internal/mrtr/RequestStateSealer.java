package dev.keel.mcp.server.internal.mrtr;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.RequestStateKeys;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Seals the {@code requestState} of a multi-round-trip request: the client carries it and must
 * give it back unchanged, so it is treated as attacker-controlled.
 *
 * <p>A sealed state is {@code base64url(payload) "." base64url(HMAC-SHA256(key, payload))}. The
 * payload names the key, the principal (a hash of its fingerprint), the method, a digest of the
 * request's params, an expiry and the answers gathered so far. Opening checks all of them: a
 * tampered, expired, foreign or replayed-elsewhere state is refused with {@code -32602}. Keys
 * rotate: states sealed under an earlier key still open while that key is listed; a state naming
 * a key this node has not seen makes it ask its ring again (a shared ring rotated elsewhere).
 */
public final class RequestStateSealer {

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private record Key(String id, SecretKeySpec spec) {}

  /** What was derived from one list of the ring: rebuilt only when the ring hands out another. */
  private record Snapshot(List<byte[]> source, Key current, List<Key> accepted) {}

  private final RequestStateKeys ring;
  private final Duration ttl;
  private final Clock clock;
  private final McpJson json;
  private volatile Snapshot snapshot;

  /**
   * Creates a sealer.
   *
   * @param ring the keys; the first seals, all open
   * @param ttl how long a state stays valid
   */
  public RequestStateSealer(RequestStateKeys ring, Duration ttl, Clock clock, McpJson json) {
    this.ring = java.util.Objects.requireNonNull(ring, "ring");
    this.ttl = ttl;
    this.clock = clock;
    this.json = json;
    snapshot(ring.keys());
  }

  private Snapshot snapshot(List<byte[]> keys) {
    Snapshot known = snapshot;
    if (known != null && known.source() == keys) {
      return known;
    }
    if (keys == null || keys.isEmpty()) {
      throw new IllegalStateException("the requestState key ring is empty");
    }
    List<Key> all = new ArrayList<>();
    for (byte[] bytes : keys) {
      all.add(key(bytes));
    }
    Snapshot fresh = new Snapshot(keys, all.get(0), List.copyOf(all));
    snapshot = fresh;
    return fresh;
  }

  private static Key key(byte[] bytes) {
    if (bytes.length < 32) {
      throw new IllegalArgumentException("requestState keys need at least 32 bytes");
    }
    return new Key(sha256(bytes).substring(0, 8), new SecretKeySpec(bytes.clone(), "HmacSHA256"));
  }

  /**
   * Seals a state.
   *
   * @param fingerprint the principal it belongs to
   * @param method the request method
   * @param paramsDigest {@link #digest} of the request's params
   * @param round the round that will present it
   * @param answers the answers gathered so far, by input key
   */
  public String seal(String fingerprint, String method, String paramsDigest, int round,
      ObjectNode answers) {
    Key current = snapshot(ring.keys()).current();
    ObjectNode payload = McpJson.object();
    payload.put("k", current.id());
    payload.put("p", sha256(fingerprint).substring(0, 32));
    payload.put("m", method);
    payload.put("d", paramsDigest);
    payload.put("r", round);
    payload.put("e", clock.millis() + ttl.toMillis());
    payload.set("a", answers);
    byte[] body = json.mapper().writeValueAsBytes(payload);
    String encoded = B64.encodeToString(body);
    return encoded + "." + B64.encodeToString(mac(current, encoded));
  }

  /**
   * What an opened state holds.
   *
   * @param round the round presenting it
   * @param answers the answers gathered in earlier rounds
   */
  public record Opened(int round, ObjectNode answers) {}

  /**
   * Opens a state presented by a client.
   *
   * @throws McpException {@code -32602} when it is malformed, tampered, expired, sealed for
   *     another principal, method or params, or under a key no longer accepted
   */
  public Opened open(JsonNode token, String fingerprint, String method, String paramsDigest) {
    if (token == null || !token.isString()) {
      throw invalid();
    }
    String text = token.stringValue();
    int dot = text.indexOf('.');
    if (dot <= 0 || dot != text.lastIndexOf('.') || text.length() > 1_000_000) {
      throw invalid();
    }
    String encoded = text.substring(0, dot);
    String presentedMac = text.substring(dot + 1);
    ObjectNode payload;
    try {
      JsonNode parsed = json.mapper().readTree(B64D.decode(encoded));
      if (!(parsed instanceof ObjectNode object)) {
        throw invalid();
      }
      payload = object;
    } catch (IllegalArgumentException | tools.jackson.core.JacksonException e) {
      throw invalid();
    }
    String named = payload.path("k").asString("");
    Key key = find(snapshot(ring.keys()), named);
    if (key == null) {
      // sealed on a node that has rotated since this one last looked
      key = find(snapshot(ring.refresh()), named);
    }
    if (key == null) {
      throw invalid();
    }
    // Compared as text, not as decoded bytes: the decoder drops the last character's spare bits,
    // so byte comparison would let several strings open as one state (found by fuzzing).
    byte[] expectedMac = B64.encode(mac(key, encoded));
    if (!MessageDigest.isEqual(expectedMac, presentedMac.getBytes(StandardCharsets.ISO_8859_1))) {
      throw invalid();
    }
    boolean ours = payload.path("p").asString("").equals(sha256(fingerprint).substring(0, 32))
        && payload.path("m").asString("").equals(method)
        && payload.path("d").asString("").equals(paramsDigest);
    if (!ours || payload.path("e").asLong(0) < clock.millis()
        || !(payload.get("a") instanceof ObjectNode answers)) {
      throw invalid();
    }
    return new Opened(payload.path("r").asInt(0), answers);
  }

  private static Key find(Snapshot keys, String id) {
    for (Key k : keys.accepted()) {
      if (k.id().equals(id)) {
        return k;
      }
    }
    return null;
  }

  private static McpException invalid() {
    return McpException.invalidParams("Invalid requestState");
  }

  private static byte[] mac(Key key, String encoded) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key.spec());
      return mac.doFinal(encoded.getBytes(StandardCharsets.US_ASCII));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }

  /**
   * Returns a digest of a request's params without {@code _meta}, {@code inputResponses} and
   * {@code requestState}, with object keys in sorted order, so a retry with the same params
   * matches whatever order the client writes them in.
   */
  public static String digest(ObjectNode params) {
    ObjectNode copy = params == null ? McpJson.object() : params.deepCopy();
    copy.remove("_meta");
    copy.remove("inputResponses");
    copy.remove("requestState");
    StringBuilder canonical = new StringBuilder();
    canonicalize(copy, canonical);
    return sha256(canonical.toString());
  }

  private static void canonicalize(JsonNode node, StringBuilder out) {
    if (node.isObject()) {
      List<String> names = new ArrayList<>(node.propertyNames());
      names.sort(null);
      out.append('{');
      for (String name : names) {
        out.append(McpJson.standard().write(name)).append(':');
        canonicalize(node.get(name), out);
        out.append(',');
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      node.forEach(child -> {
        canonicalize(child, out);
        out.append(',');
      });
      out.append(']');
    } else {
      out.append(node.toString());
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is unavailable", e);
    }
  }

  static String sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }
}
