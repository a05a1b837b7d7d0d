import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the jars the {@code keel} command runs from (the command's own jar and every jar in
 * its {@code lib/}) with their entries stored instead of deflated. Run by the build (keel-cli's
 * pom, package phase) as a single-file program, so it is not part of any shipped jar.
 *
 * <p>Why: the JVM reads every class it loads out of a jar, and a deflated entry costs an
 * inflater input buffer the size of the compressed entry plus the inflation itself. A start of
 * {@code keel fixtures} loads some 3,700 classes; stored entries took about 8 MB off the
 * start-up allocation and 10 MB off idle RSS, at the price of a {@code lib/} about twice as
 * large on disk (docs/performance.md, issue 22). The entries, their order, names, times,
 * comments and bytes stay as they were; only the compression method changes.
 *
 * <p>A signed jar is left as it is: its signature covers the entries' bytes, not their
 * compression, but a jar someone signed is theirs to change.
 *
 * <p>Usage: {@code java StoredJars.java <jar or directory>...}; a directory means the jars
 * directly in it. A jar whose entries are all stored already is not touched, so running it
 * again is cheap and changes nothing.
 */
public final class StoredJars {

  private StoredJars() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: java StoredJars.java <jar or directory>...");
      System.exit(2);
    }
    int rewritten = 0;
    for (Path jar : jars(args)) {
      if (rewrite(jar)) {
        rewritten++;
      }
    }
    System.out.println("StoredJars: " + rewritten + " jar(s) rewritten with stored entries");
  }

  private static List<Path> jars(String[] args) {
    List<Path> jars = new ArrayList<>();
    for (String arg : args) {
      Path path = Path.of(arg);
      if (Files.isDirectory(path)) {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(path, "*.jar")) {
          dir.forEach(jars::add);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot list " + path, e);
        }
      } else if (Files.isRegularFile(path)) {
        jars.add(path);
      } else {
        throw new IllegalArgumentException("no such jar or directory: " + path);
      }
    }
    jars.sort(null);
    return jars;
  }

  /** Returns whether the jar was rewritten. */
  static boolean rewrite(Path jar) {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      boolean deflated = false;
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        if (signature(entry.getName())) {
          return false;
        }
        deflated |= entry.getMethod() != ZipEntry.STORED;
      }
      if (!deflated) {
        return false;
      }
      Path temp = Files.createTempFile(jar.toAbsolutePath().getParent(), ".stored-", ".jar");
      try {
        try (OutputStream file = Files.newOutputStream(temp);
            ZipOutputStream out = new ZipOutputStream(file)) {
          out.setMethod(ZipOutputStream.STORED);
          if (zip.getComment() != null) {
            out.setComment(zip.getComment());
          }
          for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
            ZipEntry entry = e.nextElement();
            byte[] bytes;
            try (InputStream in = zip.getInputStream(entry)) {
              bytes = in.readAllBytes();
            }
            out.putNextEntry(stored(entry, bytes));
            out.write(bytes);
            out.closeEntry();
          }
        }
        FileTime modified = Files.getLastModifiedTime(jar);
        copyPermissions(jar, temp);
        Files.move(temp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        // copy-dependencies compares times: the rewritten copy keeps its source's, so the build
        // copies (and rewrites) a jar again exactly when it would have copied it anyway
        Files.setLastModifiedTime(jar, modified);
        return true;
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewrite " + jar, e);
    }
  }

  /** A temporary file is private to its owner; the jar it replaces was not. */
  private static void copyPermissions(Path from, Path to) throws IOException {
    if (Files.getFileStore(from).supportsFileAttributeView(PosixFileAttributeView.class)) {
      Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    }
  }

  private static ZipEntry stored(ZipEntry entry, byte[] bytes) {
    ZipEntry copy = new ZipEntry(entry.getName());
    copy.setMethod(ZipEntry.STORED);
    copy.setSize(bytes.length);
    copy.setCompressedSize(bytes.length);
    CRC32 crc = new CRC32();
    crc.update(bytes);
    copy.setCrc(crc.getValue());
    // DOS time only: setLastModifiedTime would add an extended-timestamp field to every entry,
    // which the JVM then parses into objects each time it looks a class up (4 MB more at start)
    if (entry.getTime() != -1) {
      copy.setTime(entry.getTime());
    }
    if (entry.getComment() != null) {
      copy.setComment(entry.getComment());
    }
    return copy;
  }

  /** A jar signature's files: META-INF/*.SF, .RSA, .DSA, .EC. */
  private static boolean signature(String name) {
    if (!name.startsWith("META-INF/") || name.indexOf('/', "META-INF/".length()) >= 0) {
      return false;
    }
    return name.endsWith(".SF") || name.endsWith(".RSA") || name.endsWith(".DSA")
        || name.endsWith(".EC");
  }
}
