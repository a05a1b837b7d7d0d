package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.ServerCapabilities;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one client knows about its server and its session, shared by the classes that make up
 * the client: the era and version, what the server said about itself, and what a replacement
 * session must renew (the log level, the legacy resource subscriptions). Fields are volatile:
 * the handshake writes them, any calling thread reads them.
 */
final class ClientState {

  /** The era, null until the connection found it. */
  volatile Era era;
  /** The protocol version of the next message: the tried one during the handshake. */
  volatile String version;
  volatile Implementation serverInfo;
  volatile ServerCapabilities serverCapabilities;
  volatile String instructions;
  /** The level set with {@code setLogLevel}, renewed in a replacement session. */
  volatile LoggingLevel logLevel;
  /** True when the legacy session has an id: losing it (404) calls for a new handshake. */
  volatile boolean sessionful;
  volatile boolean closed;
  /**
   * The legacy session's resource subscriptions, handle to URI (two handles may watch one URI),
   * renewed in a replacement session.
   */
  final Map<Object, String> legacySubscriptions = new ConcurrentHashMap<>();

  /** Returns true in the stateless era. */
  boolean modern() {
    return era == Era.MODERN;
  }
}
