/**
 * What several nodes of one server share: who they are ({@link dev.keel.mcp.server.cluster.Cluster}),
 * where each legacy session lives and who owns it
 * ({@link dev.keel.mcp.server.cluster.SessionDirectory}), and a bus for what every node must hear
 * ({@link dev.keel.mcp.server.cluster.ClusterBus}). A single process needs none of it:
 * {@link dev.keel.mcp.server.cluster.Cluster#single()} is the default. keel-redis implements it on
 * Redis.
 *
 * <p>The design (docs/cluster.md): a session's handlers and streams stay on the node that holds
 * it, because a thread blocked in a handler cannot move. Any other node that receives a request
 * for it forwards the bytes there; what is shared is only what every node must agree on, and a
 * node that dies leaves its sessions to whichever node sees them next.
 */
package dev.keel.mcp.server.cluster;
