package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keel command runs from jars whose entries are stored, not deflated (keel-cli's
 * src/build/StoredJars.java, run by the build; docs/performance.md says what it bought): the
 * build's output is checked, and the program is run on jars made here to show that it changes
 * nothing but the compression.
 */
class StoredJarsTest {

  private static final Path CLI = Path.of("..", "keel-cli");

  @TempDir
  Path scratch;

  @Test
  void theCommandRunsFromJarsWhoseEntriesAreAllStored() throws IOException {
    Path jar = CLI.resolve("target/keel.jar");
    assertThat(jar).as("keel-cli is packaged before these tests run").exists();
    List<Path> jars = new ArrayList<>(List.of(jar));
    try (DirectoryStream<Path> lib = Files.newDirectoryStream(CLI.resolve("target/lib"),
        "*.jar")) {
      lib.forEach(jars::add);
    }
    assertThat(jars).as("the command's jar and its libraries").hasSizeGreaterThan(20);
    for (Path each : jars) {
      assertThat(deflated(each)).as("deflated entries in %s", each.getFileName()).isEmpty();
    }
  }

  @Test
  void rewritingKeepsEveryEntryAndItsBytesAndLeavesSignedJarsAlone() throws Exception {
    Path plain = scratch.resolve("plain.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, "lib/a.jar lib/b.jar");
    List<String> names = List.of("a/", "a/One.class", "META-INF/versions/17/a/One.class",
        "a/big.txt", "empty.txt");
    try (OutputStream file = Files.newOutputStream(plain);
        JarOutputStream out = new JarOutputStream(file, manifest)) {
      for (String name : names) {
        ZipEntry entry = new ZipEntry(name);
        entry.setTime(315_532_800_000L + 86_400_000L); // 1980-01-02, as reproducible builds set
        out.putNextEntry(entry);
        out.write(content(name));
        out.closeEntry();
      }
    }
    Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rw-r--r--"));
    Path signed = scratch.resolve("signed.jar");
    try (OutputStream file = Files.newOutputStream(signed);
        JarOutputStream out = new JarOutputStream(file, manifest)) {
      for (String name : List.of("META-INF/SIGNER.SF", "META-INF/SIGNER.RSA", "b/Two.class")) {
        out.putNextEntry(new ZipEntry(name));
        out.write(content(name));
        out.closeEntry();
      }
    }
    byte[] signedBefore = Files.readAllBytes(signed);
    List<Long> timesBefore = times(plain);
    assertThat(deflated(plain)).isNotEmpty();

    assertThat(storedJars(scratch.toString())).contains("1 jar(s) rewritten");

    assertThat(deflated(plain)).isEmpty();
    assertThat(Files.readAllBytes(signed)).as("a signed jar is not touched")
        .isEqualTo(signedBefore);
    assertThat(Files.getPosixFilePermissions(plain))
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(times(plain)).isEqualTo(timesBefore);
    try (JarFile jar = new JarFile(plain.toFile(), true, ZipFile.OPEN_READ, Runtime.version())) {
      assertThat(jar.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH))
          .isEqualTo("lib/a.jar lib/b.jar");
      assertThat(jar.isMultiRelease()).isTrue();
      // a versioned jar answers a/One.class with the release's copy: still there and used
      try (var in = jar.getInputStream(jar.getEntry("a/One.class"))) {
        assertThat(in.readAllBytes()).isEqualTo(content("META-INF/versions/17/a/One.class"));
      }
    }
    try (ZipFile zip = new ZipFile(plain.toFile())) {
      List<String> listed = new ArrayList<>();
      zip.stream().forEach(e -> listed.add(e.getName()));
      assertThat(listed).containsSubsequence(names);
      for (String name : names) {
        try (var in = zip.getInputStream(zip.getEntry(name))) {
          assertThat(in.readAllBytes()).as(name).isEqualTo(content(name));
        }
      }
    }
    // again: nothing left to do, nothing changed
    byte[] once = Files.readAllBytes(plain);
    assertThat(storedJars(plain.toString())).contains("0 jar(s) rewritten");
    assertThat(Files.readAllBytes(plain)).isEqualTo(once);
  }

  private static byte[] content(String name) {
    if (name.endsWith("/") || name.equals("empty.txt")) {
      return new byte[0];
    }
    return (name + "\n").repeat(name.equals("a/big.txt") ? 5_000 : 3)
        .getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> deflated(Path jar) throws IOException {
    List<String> deflated = new ArrayList<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        if (entry.getMethod() != ZipEntry.STORED) {
          deflated.add(entry.getName());
        }
      }
    }
    return deflated;
  }

  private static List<Long> times(Path jar) throws IOException {
    List<Long> times = new ArrayList<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      zip.stream().forEach(e -> times.add(e.getTime()));
    }
    return times;
  }

  private static String storedJars(String target) throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), CLI.resolve("src/build/StoredJars.java").toString(), target)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
