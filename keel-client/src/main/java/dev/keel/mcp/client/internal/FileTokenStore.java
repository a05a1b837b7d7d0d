package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.OAuthTokenStore;
import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * A token store in one JSON file readable and writable by its owner only. Every change writes a
 * new file (created with those permissions, so there is no moment others could read it) and
 * moves it over the old one. A file that others may read is refused rather than used: its
 * secrets may already be out, and silently tightening it would hide that.
 */
public final class FileTokenStore implements OAuthTokenStore {

  private static final Set<PosixFilePermission> OWNER_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_DIR =
      PosixFilePermissions.fromString("rwx------");

  private final Path path;

  /** Opens the store at {@code path} (created on the first write). */
  public FileTokenStore(Path path) {
    this.path = Objects.requireNonNull(path, "path").toAbsolutePath();
    if (Files.exists(this.path) && posix()) {
      try {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(this.path);
        if (!OWNER_FILE.containsAll(perms)) {
          throw new IllegalArgumentException(this.path + " may be read by others ("
              + PosixFilePermissions.toString(perms) + "); it must be rw------- "
              + "(chmod 600) before it holds tokens");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public synchronized Optional<String> get(String key) {
    return Optional.ofNullable(read().get(key)).map(n -> n.asString(null));
  }

  @Override
  public synchronized void put(String key, String value) {
    ObjectNode all = read();
    all.put(key, value);
    write(all);
  }

  @Override
  public synchronized void remove(String key) {
    ObjectNode all = read();
    if (all.remove(key) != null) {
      write(all);
    }
  }

  private ObjectNode read() {
    if (!Files.exists(path)) {
      return McpJson.object();
    }
    try {
      return McpJson.standard().parseObject(Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the token store " + path, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException("the token store " + path + " is not JSON; move it "
          + "away to start again", e);
    }
  }

  private void write(ObjectNode all) {
    try {
      Path dir = path.getParent();
      boolean posix = posix();
      if (!Files.isDirectory(dir)) {
        if (posix) {
          Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
        } else {
          Files.createDirectories(dir);
        }
      }
      Path next = posix
          ? Files.createTempFile(dir, ".tokens", ".tmp",
              PosixFilePermissions.asFileAttribute(OWNER_FILE))
          : Files.createTempFile(dir, ".tokens", ".tmp");
      try {
        Files.writeString(next, all.toString(), StandardCharsets.UTF_8);
        try {
          Files.move(next, path, StandardCopyOption.REPLACE_EXISTING,
              StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(next, path, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(next);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the token store " + path, e);
    }
  }

  private boolean posix() {
    Path probe = Files.exists(path) ? path : path.getParent();
    while (probe != null && !Files.exists(probe)) {
      probe = probe.getParent();
    }
    return probe != null && Files.getFileAttributeView(probe, PosixFileAttributeView.class)
        != null;
  }
}
