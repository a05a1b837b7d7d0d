package dev.keel.mcp.server.internal.session;

import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The live legacy sessions of a server.
 *
 * <p>Session ids are 256 bits from a {@link SecureRandom}, base64url without padding: 43
 * visible ASCII characters. The table is bounded: past its maximum, new sessions are refused
 * (the transport answers 503) and nothing is evicted to make room.
 */
public final class SessionTable {

  private final Map<String, RealServerSession> sessions = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final int maxSessions;
  private final Consumer<RealServerSession> onClose;

  /**
   * Creates a table.
   *
   * @param maxSessions the most live sessions
   * @param onClose runs once for each session that ends, before it leaves the table
   */
  public SessionTable(int maxSessions, Consumer<RealServerSession> onClose) {
    this.maxSessions = maxSessions;
    this.onClose = onClose;
  }

  /**
   * Creates a session.
   *
   * @return empty when the table is full
   */
  public Optional<RealServerSession> create(Principal owner, LoggingLevel logLevel) {
    if (sessions.size() >= maxSessions) {
      return Optional.empty();
    }
    String id = newId();
    RealServerSession session = new RealServerSession(id, owner, logLevel, s -> {
      onClose.accept(s);
      sessions.remove(s.id(), s);
    });
    sessions.put(id, session);
    return Optional.of(session);
  }

  /** Returns the live session with this id. */
  public Optional<RealServerSession> get(String id) {
    return id == null ? Optional.empty() : Optional.ofNullable(sessions.get(id));
  }

  /** Returns a snapshot of the live sessions. */
  public Collection<RealServerSession> all() {
    return List.copyOf(sessions.values());
  }

  /** Returns how many sessions are live. */
  public int size() {
    return sessions.size();
  }

  private String newId() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
