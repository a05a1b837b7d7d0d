/**
 * Keel's core: JSON-RPC 2.0 messages and their codec, the MCP schema of both eras as records,
 * protocol versions, the era rule and the method table, and the protocol engine's pieces that
 * server and client both compose.
 */
module dev.keel.mcp.core {
  requires transitive tools.jackson.databind;
  requires com.networknt.schema;

  exports dev.keel.mcp.core;
  exports dev.keel.mcp.core.engine;
  exports dev.keel.mcp.core.jsonrpc;
  exports dev.keel.mcp.core.jsonschema;
  exports dev.keel.mcp.core.protocol;
  exports dev.keel.mcp.core.schema;
}
