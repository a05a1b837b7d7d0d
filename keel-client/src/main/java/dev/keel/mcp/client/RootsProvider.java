package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.Root;
import java.util.List;

/** Gives the server the client's roots. Registering one declares the {@code roots} capability. */
@FunctionalInterface
public interface RootsProvider {

  /** Returns the roots ({@code file://} URIs). */
  List<Root> roots() throws Exception;
}
