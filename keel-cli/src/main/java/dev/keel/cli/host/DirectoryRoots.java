package dev.keel.cli.host;

import dev.keel.mcp.client.RootsProvider;
import dev.keel.mcp.core.schema.Root;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The roots {@code keel call} offers: directories, as {@code file://} URIs without a trailing
 * slash, each named for its last path element.
 */
public final class DirectoryRoots implements RootsProvider {

  private final List<Root> roots = new ArrayList<>();

  /** Offers these directories (made absolute and normalized). */
  public DirectoryRoots(List<Path> directories) {
    for (Path d : directories) {
      Path dir = d.toAbsolutePath().normalize();
      String uri = dir.toUri().toString();
      if (uri.endsWith("/") && uri.length() > "file:///".length()) {
        uri = uri.substring(0, uri.length() - 1);
      }
      Path name = dir.getFileName();
      roots.add(new Root(uri, name == null ? dir.toString() : name.toString(), null));
    }
  }

  @Override
  public List<Root> roots() {
    return List.copyOf(roots);
  }
}
