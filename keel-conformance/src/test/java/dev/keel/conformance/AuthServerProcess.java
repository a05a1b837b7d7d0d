package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The real authorization server of the OAuth tests (Spring Authorization Server, module
 * keel-authserver-fixture), run as a process of its own on 127.0.0.1 and stopped on close.
 */
final class AuthServerProcess implements AutoCloseable {

  private final Process process;
  private final URI issuer;

  private AuthServerProcess(Process process, URI issuer) {
    this.process = process;
    this.issuer = issuer;
  }

  /** Starts it with {@code resource} as the audience of its tokens. */
  static AuthServerProcess start(URI resource) throws Exception {
    Path fixture = Path.of("../keel-authserver-fixture/target").toAbsolutePath().normalize();
    Process process;
    try (var jars = Files.list(fixture)) {
      Path jar = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("build keel-authserver-fixture first"));
      process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
          .toString(), "-Xmx256m", "-cp", jar + java.io.File.pathSeparator + fixture.resolve("lib")
          + "/*", "dev.keel.fixture.authserver.AuthServerMain", "--keel.resource=" + resource)
          .redirectErrorStream(true).start();
    }
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8));
    String line;
    String listening = null;
    StringBuilder seen = new StringBuilder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
      seen.append(line).append('\n');
      if (line.startsWith("listening on ")) {
        listening = line.substring("listening on ".length()).strip();
        break;
      }
    }
    if (listening == null) {
      process.destroyForcibly();
    }
    assertThat(listening).as("the authorization server started:%n%s", seen).isNotNull();
    Thread drain = new Thread(() -> {
      try {
        while (out.readLine() != null) {
          // keep its output from filling the pipe
        }
      } catch (java.io.IOException ignored) {
        // it ended
      }
    }, "authserver-output");
    drain.setDaemon(true);
    drain.start();
    return new AuthServerProcess(process, URI.create(listening));
  }

  /** Returns its issuer, {@code http://127.0.0.1:PORT}. */
  URI issuer() {
    return issuer;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
