package dev.keel.mcp.core.jsonrpc;

/**
 * Hard limits on a JSON message read from a peer.
 *
 * @param maxBytes the largest message, in bytes (default 4 MiB)
 * @param maxDepth the deepest nesting of arrays and objects (default 64)
 * @param maxStringLength the longest string value or property name, in characters
 */
public record JsonLimits(int maxBytes, int maxDepth, int maxStringLength) {

  /** 4 MiB, the default largest message. */
  public static final int DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
  /** 64, the default deepest nesting. */
  public static final int DEFAULT_MAX_DEPTH = 64;

  /** Checks that every limit is positive. */
  public JsonLimits {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    if (maxDepth <= 0) {
      throw new IllegalArgumentException("maxDepth must be positive: " + maxDepth);
    }
    if (maxStringLength <= 0) {
      throw new IllegalArgumentException("maxStringLength must be positive: " + maxStringLength);
    }
  }

  /** Returns the defaults: 4 MiB, depth 64, strings up to the message size. */
  public static JsonLimits defaults() {
    return new JsonLimits(DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_BYTES);
  }

  /** Returns a copy with another byte limit (strings are capped at the same size). */
  public JsonLimits withMaxBytes(int bytes) {
    return new JsonLimits(bytes, maxDepth, Math.min(maxStringLength, bytes));
  }

  /** Returns a copy with another depth limit. */
  public JsonLimits withMaxDepth(int depth) {
    return new JsonLimits(maxBytes, depth, maxStringLength);
  }
}
