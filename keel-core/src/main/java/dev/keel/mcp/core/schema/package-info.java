/**
 * The MCP schema (revision 2025-11-25, with what later revisions add) as records.
 *
 * <p>One record per schema type. Nullable components are optional members and are omitted from
 * the JSON when null; unknown members a peer sends are ignored, and {@code _meta} is kept as
 * the {@code meta} component. Records bind through Jackson without annotations except where the
 * wire name differs from the Java name.
 */
package dev.keel.mcp.core.schema;
