package dev.keel.mcp.server.transport;

/**
 * A slot for one request under the server's in-flight limit, taken before a handler thread is
 * started. Closing it frees the slot; closing twice is harmless.
 */
public interface Admission extends AutoCloseable {

  /** Frees the slot. */
  @Override
  void close();
}
