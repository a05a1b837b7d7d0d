package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.ServerCapabilities;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Finding the era and starting sessions: the {@code server/discover} probe, stateless discovery,
 * the legacy {@code initialize} handshake, and the replacement of a session that ended.
 *
 * <p>Only a definite rejection of the probe makes a server legacy; then {@code initialize}
 * starts clean, with no protocol version of its own (the probe's 2026-07-28 stays out of it),
 * and the version the server picks is used from then on. What the transport must know about the
 * new session it learns through {@link ClientTransport#sessionStarted} and
 * {@link ClientTransport#openListeningStream()}, whatever its class.
 */
final class Handshake {

  private static final Logger LOG = LoggerFactory.getLogger(Handshake.class);

  private final ClientTransport transport;
  private final ClientState state;
  private final Exchanges exchanges;
  private final HostHandlers host;
  private final McpJson json;
  private final McpClient.Builder config;
  private final ReentrantLock recoveryLock = new ReentrantLock();

  Handshake(ClientTransport transport, ClientState state, Exchanges exchanges, HostHandlers host,
      McpJson json, McpClient.Builder config) {
    this.transport = transport;
    this.state = state;
    this.exchanges = exchanges;
    this.host = host;
    this.json = json;
    this.config = config;
  }

  /** Finds the era (or takes the builder's) and completes the era's handshake. */
  void connect() {
    Era verdict = config.era;
    if (verdict == Era.AUTO) {
      verdict = probe();
    } else if (verdict == Era.MODERN) {
      try {
        discover(ProtocolVersion.V2026_07_28, true);
      } catch (LegacyOnly e) {
        throw new InvalidServerResponseException("the server does not speak the stateless "
            + "era (2026-07-28); connect with Era.LEGACY or Era.AUTO");
      }
    }
    if (verdict == Era.LEGACY) {
      // Whatever the probe tried is not this session's version: the server picks it.
      state.version = null;
      initialize();
    }
    state.era = verdict;
  }

  /**
   * Probes with {@code server/discover}. Only a definite rejection makes the server legacy:
   * no answer, 401/403 and 5xx say nothing about the era and fail the connection.
   */
  private Era probe() {
    try {
      discover(ProtocolVersion.V2026_07_28, true);
      return Era.MODERN;
    } catch (McpException e) {
      if (e.code() == ErrorCodes.HEADER_MISMATCH
          || e.code() == ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY) {
        throw new TransportException("the server speaks the stateless era but refused the "
            + "discovery request: " + Text.safe(e.getMessage()));
      }
      return Era.LEGACY;
    } catch (LegacyOnly e) {
      return Era.LEGACY;
    } catch (TransportException e) {
      int status = e.httpStatus();
      if (status == 400 || status == 404 || status == 405) {
        return Era.LEGACY;
      }
      throw new TransportException(status == 0 ? e.getMessage()
          : "cannot tell the server's protocol era: " + e.getMessage(), status, e);
    } catch (RequestTimeoutException e) {
      throw new TransportException("the server did not answer server/discover within "
          + config.connectTimeout.toMillis() + " ms; its era is unknown (set Era.LEGACY or "
          + "Era.MODERN to skip the probe)", 0, e);
    }
  }

  /** Signals that discovery showed a server speaking only legacy versions. */
  private static final class LegacyOnly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LegacyOnly() {
      super(null, null, false, false);
    }
  }

  private void discover(String tryVersion, boolean retryOnVersion) {
    state.version = tryVersion;
    JsonNode result;
    try {
      result = exchanges.stateless("server/discover", McpJson.object(), config.connectTimeout,
          null, null, false);
    } catch (McpException e) {
      if (e.code() != ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION || !retryOnVersion) {
        throw e;
      }
      String other = mutualModernVersion(e.data());
      if (other == null) {
        throw new LegacyOnly();
      }
      discover(other, false);
      return;
    }
    List<String> supported = Results.strings(result.get("supportedVersions"));
    if (supported.isEmpty()) {
      // Not a discovery result: a legacy server answering an unknown method with anything.
      throw new LegacyOnly();
    }
    if (!supported.contains(state.version)) {
      String other = supported.stream().filter(ProtocolVersion::isModern).findFirst()
          .orElse(null);
      if (other == null) {
        throw new LegacyOnly();
      }
      state.version = other;
    }
    // 2026-07-28 puts it in _meta; some servers put it beside the capabilities. It is a SHOULD.
    JsonNode info = result.path("_meta").get(MetaKeys.SERVER_INFO);
    if (info == null || !info.isObject()) {
      info = result.get("serverInfo");
    }
    state.serverInfo = info != null && info.isObject()
        ? Results.parse(info, Implementation.class, "server/discover") : null;
    JsonNode capabilities = result.get("capabilities");
    state.serverCapabilities = capabilities == null || capabilities.isNull()
        ? new ServerCapabilities(null, null, null, null, null, null, null, null)
        : Results.parse(capabilities, ServerCapabilities.class, "server/discover");
    state.instructions = Results.text(result, "instructions");
  }

  /** Returns a 2026 version among those a {@code -32022} error names as supported, or null. */
  static String mutualModernVersion(JsonNode data) {
    JsonNode supported = data == null ? null : data.get("supported");
    for (String v : Results.strings(supported)) {
      if (ProtocolVersion.isModern(v)) {
        return v;
      }
    }
    return null;
  }

  /** The legacy handshake; runs unpinned, since it establishes a session rather than using one. */
  private void initialize() {
    transport.unpinnedSession(() -> {
      ObjectNode params = McpJson.object();
      params.put("protocolVersion", ProtocolVersion.LATEST_LEGACY);
      params.set("capabilities", json.toObject(host.capabilities()));
      params.set("clientInfo", json.toObject(config.clientInfo));
      JsonNode result = exchanges.legacy("initialize", params, config.connectTimeout, null,
          transport.sessionEpoch(), false);
      JsonNode negotiated = result.get("protocolVersion");
      if (negotiated == null || !negotiated.isString()
          || !ProtocolVersion.isLegacy(negotiated.stringValue())) {
        throw new InvalidServerResponseException("the server chose a protocol version this "
            + "client does not speak: " + Text.safe(String.valueOf(negotiated)));
      }
      String version = negotiated.stringValue();
      state.version = version;
      state.serverInfo = Results.parse(result.get("serverInfo"), Implementation.class,
          "initialize");
      state.serverCapabilities = Results.parse(result.get("capabilities"),
          ServerCapabilities.class, "initialize");
      state.instructions = Results.text(result, "instructions");
      state.sessionful = transport.sessionId() != null;
      transport.sessionStarted(version);
      transport.send(new JsonRpcNotification("notifications/initialized", null),
          ClientTransport.SendOptions.legacy(version));
      if (transport.capabilities().listeningStream()) {
        transport.openListeningStream();
      }
      return null;
    });
  }

  /**
   * Starts a replacement session after the one a request was built in ended, and renews what
   * the old one held (log level, subscriptions). One thread at a time; a thread that finds the
   * session already replaced does nothing.
   */
  void recover() {
    recoveryLock.lock();
    try {
      if (state.closed || transport.sessionId() != null) {
        return;
      }
      LOG.info("the server session expired; starting a new one");
      initialize();
      LoggingLevel level = state.logLevel;
      if (level != null) {
        exchanges.legacy("logging/setLevel", McpJson.object().put("level", level.wireName()),
            config.requestTimeout, null, transport.sessionEpoch(), true);
      }
      Set<String> uris = new LinkedHashSet<>(state.legacySubscriptions.values());
      for (String uri : uris) {
        try {
          exchanges.legacy("resources/subscribe", McpJson.object().put("uri", uri),
              config.requestTimeout, null, transport.sessionEpoch(), true);
        } catch (RuntimeException e) {
          LOG.warn("could not renew the subscription to {}: {}", Text.safe(uri),
              Text.safe(e.getMessage()));
        }
      }
    } finally {
      recoveryLock.unlock();
    }
  }
}
