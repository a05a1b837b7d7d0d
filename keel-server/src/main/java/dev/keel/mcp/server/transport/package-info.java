/**
 * The contract between the server and its transports: what stdio, the servlet, or a transport of
 * your own calls to feed messages in and get messages out. Applications that only register tools
 * never need it.
 */
package dev.keel.mcp.server.transport;
