package dev.keel.mcp.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs the Debian packages the tests run for real (Redis here, HAProxy in keel-conformance)
 * when their binary is missing: apt-get as root, non-interactively, after an {@code apt-get
 * update} when the package lists are missing. Shared through this module's test jar.
 */
public final class DebianPackages {

  private DebianPackages() {}

  /**
   * Makes sure {@code binary} exists, installing {@code pkg} when it does not.
   *
   * @throws IllegalStateException when it cannot be installed (the tests fail, never skip)
   */
  public static void ensure(String pkg, Path binary) throws IOException, InterruptedException {
    if (Files.isExecutable(binary)) {
      return;
    }
    List<String> install = List.of("apt-get", "install", "-y", "--no-install-recommends", pkg);
    if (run(install) != 0) {
      // the package lists may be missing on a fresh machine
      run(List.of("apt-get", "update"));
      if (run(install) != 0) {
        throw new IllegalStateException(pkg + " is missing and apt-get could not install it "
            + "(the tests need root for that): run 'apt-get install -y " + pkg + "'");
      }
    }
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("apt-get installed " + pkg + " but no " + binary);
    }
  }

  private static int run(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process p = pb.start();
    p.getOutputStream().close();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }
}
