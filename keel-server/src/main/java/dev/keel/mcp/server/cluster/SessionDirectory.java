package dev.keel.mcp.server.cluster;

import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * Where the legacy sessions of every node are listed, with their owners, and where the session
 * limits hold for the cluster as a whole. Every change is atomic in the store: two nodes can
 * never both claim an id, take over the same session, or together pass a limit.
 */
public interface SessionDirectory {

  /** How a claim ended. */
  enum Claim {
    /** The session is listed. */
    CLAIMED,
    /** A limit is reached (or the id is taken): the session must not be served. */
    REFUSED
  }

  /**
   * Lists a new session, unless the cluster already holds {@code maxSessions} or its owner
   * {@code maxPerOwner}. Sessions whose listing lapsed (their node stopped renewing) no longer
   * count.
   */
  Claim claim(SessionRecord record, int maxSessions, int maxPerOwner);

  /** Returns the listing of a session, wherever it is held. */
  Optional<SessionRecord> find(String id);

  /**
   * Moves a session from a node that died to {@code toNode}, only if it is still listed under
   * {@code fromNode}.
   *
   * @return true when this call moved it
   */
  boolean move(String id, String fromNode, String toNode);

  /**
   * Keeps the listings of the sessions this node holds from lapsing (called periodically), and
   * lists again any the store lost (a store restarted empty).
   *
   * @return the ids of those another node holds now (it took them over while this node seemed
   *     dead): this node must let them go
   */
  Set<String> renew(Collection<SessionRecord> held);

  /**
   * Removes a session's listing (DELETE, expiry), only while it is this owner's and this node
   * holds it: a node closing a session another node took over leaves the listing alone.
   */
  void remove(String id, String owner);
}
