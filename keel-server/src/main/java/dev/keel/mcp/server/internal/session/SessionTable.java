package dev.keel.mcp.server.internal.session;

import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The live legacy sessions of a server, and who owns them.
 *
 * <p>Session ids are 256 bits from a {@link SecureRandom}, base64url without padding: 43
 * visible ASCII characters. The table is bounded in total and per principal: past either limit
 * new sessions are refused (the transport answers 503) and nothing is evicted to make room.
 * Sessions idle longer than the idle timeout are evicted by {@link #evictIdle}, unless busy.
 */
public final class SessionTable {

  /**
   * The table's limits.
   *
   * @param maxSessions the most live sessions
   * @param maxPerPrincipal the most live sessions one principal may hold
   * @param idleTimeout how long a session may stay idle before it is evicted
   */
  public record Limits(int maxSessions, int maxPerPrincipal, Duration idleTimeout) {}

  private final Map<String, RealServerSession> sessions = new ConcurrentHashMap<>();
  private final Map<String, Integer> perPrincipal = new ConcurrentHashMap<>();
  private final ReentrantLock admission = new ReentrantLock();
  private final SecureRandom random = new SecureRandom();
  private final Limits limits;
  private final SessionOwnerRegistry owners;
  private final ServerCounters counters;
  private final Consumer<RealServerSession> onClose;

  /**
   * Creates a table.
   *
   * @param onClose runs once for each session that ends, before it leaves the table
   */
  public SessionTable(Limits limits, SessionOwnerRegistry owners, ServerCounters counters,
      Consumer<RealServerSession> onClose) {
    this.limits = limits;
    this.owners = owners;
    this.counters = counters;
    this.onClose = onClose;
  }

  /**
   * Creates a session owned by {@code owner}.
   *
   * @return empty when a limit is reached
   */
  public Optional<RealServerSession> create(Principal owner, LoggingLevel logLevel) {
    return admit(owner, newId(), false, logLevel);
  }

  /**
   * Opens a notification channel under a client-chosen id, trust on first use: the first
   * principal to attach claims it. Returns the existing channel to its owner.
   *
   * @return empty when attaching is not allowed, the id is taken by someone else or is
   *     low-entropy, or a limit is reached
   */
  public Optional<RealServerSession> attachChannel(String id, Principal principal,
      LoggingLevel logLevel) {
    Optional<RealServerSession> existing = get(id);
    if (existing.isPresent()) {
      RealServerSession s = existing.get();
      return s.isChannel() && owners.ownedBy(id, principal.fingerprint()) ? existing
          : Optional.empty();
    }
    if (!owners.authorizeAttach(id, principal.fingerprint())) {
      return Optional.empty();
    }
    Optional<RealServerSession> created = admit(principal, id, true, logLevel);
    if (created.isEmpty()) {
      owners.forget(id);
    }
    return created;
  }

  /**
   * Takes over a session another node held under the same id and owner, with what it had
   * negotiated (the node died; the cluster's directory moved the session here).
   *
   * @return empty when a local limit is reached or the id is already held here
   */
  public Optional<RealServerSession> restore(String id, Principal owner, LoggingLevel logLevel,
      String protocolVersion, dev.keel.mcp.core.schema.ClientCapabilities caps,
      dev.keel.mcp.core.schema.Implementation info) {
    Optional<RealServerSession> made = admit(owner, id, false, logLevel);
    made.ifPresent(s -> {
      s.negotiated(protocolVersion, caps, info);
      s.markInitialized();
    });
    return made;
  }

  private Optional<RealServerSession> admit(Principal owner, String id, boolean channel,
      LoggingLevel logLevel) {
    RealServerSession session;
    admission.lock();
    try {
      int mine = perPrincipal.getOrDefault(owner.fingerprint(), 0);
      if (sessions.size() >= limits.maxSessions() || mine >= limits.maxPerPrincipal()
          || sessions.containsKey(id)) {
        counters.sessionRefused();
        return Optional.empty();
      }
      if (!channel && !owners.bind(id, owner.fingerprint())) {
        counters.sessionRefused();
        return Optional.empty();
      }
      session = new RealServerSession(id, owner, channel, logLevel, counters, this::closed);
      sessions.put(id, session);
      perPrincipal.merge(owner.fingerprint(), 1, Integer::sum);
    } finally {
      admission.unlock();
    }
    return Optional.of(session);
  }

  private void closed(RealServerSession session) {
    onClose.accept(session);
    admission.lock();
    try {
      // The binding goes first: between the two steps the id must answer as unknown, never as
      // a free id still bound to its old owner.
      owners.forget(session.id());
      if (sessions.remove(session.id(), session)) {
        perPrincipal.computeIfPresent(session.owner().fingerprint(),
            (k, n) -> n <= 1 ? null : n - 1);
      }
    } finally {
      admission.unlock();
    }
  }

  /** Returns the live session with this id. */
  public Optional<RealServerSession> get(String id) {
    return id == null ? Optional.empty() : Optional.ofNullable(sessions.get(id));
  }

  /**
   * Returns the live session with this id when {@code principal} owns it; empty otherwise, for
   * an unknown and a foreign id alike.
   */
  public Optional<RealServerSession> owned(String id, Principal principal) {
    return get(id).filter(s -> owners.ownedBy(id, principal.fingerprint()));
  }

  /**
   * Closes every session idle past the timeout that is not busy.
   *
   * @return how many were evicted
   */
  public int evictIdle(long nowNanos) {
    long limit = limits.idleTimeout().toNanos();
    int evicted = 0;
    for (RealServerSession session : all()) {
      if (nowNanos - session.lastActivityNanos() > limit && !session.busy()) {
        session.close();
        counters.evicted();
        evicted++;
      }
    }
    return evicted;
  }

  /** Returns a snapshot of the live sessions. */
  public Collection<RealServerSession> all() {
    return List.copyOf(sessions.values());
  }

  /** Returns how many sessions are live. */
  public int size() {
    return sessions.size();
  }

  /**
   * Returns how many principals the per-principal limit counts sessions for: only those with a
   * live session, or the count would keep an entry for every principal ever seen.
   */
  int countedPrincipals() {
    return perPrincipal.size();
  }

  /** Returns the owner registry. */
  public SessionOwnerRegistry owners() {
    return owners;
  }

  private String newId() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
