/**
 * Keel on Redis: the state several Keel nodes behind one load balancer must share, kept in
 * Redis through Lettuce. Each type implements one of keel-server's interfaces for shared state;
 * the in-memory defaults stay for a single node.
 */
module dev.keel.mcp.redis {
  requires transitive dev.keel.mcp.server;
  requires lettuce.core;
  requires org.slf4j;

  exports dev.keel.mcp.redis;
}
