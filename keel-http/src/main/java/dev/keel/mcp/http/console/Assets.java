package dev.keel.mcp.http.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** The page's files, read once from the classpath: nothing is fetched from anywhere else. */
final class Assets {

  /** One file and its media type. */
  record Asset(byte[] bytes, String type) {}

  private static final Map<String, String> FILES = Map.of(
      "index.html", "text/html;charset=utf-8",
      "login.html", "text/html;charset=utf-8",
      "console.css", "text/css;charset=utf-8",
      "console.js", "text/javascript;charset=utf-8");

  private final Map<String, Asset> assets;

  Assets() {
    java.util.HashMap<String, Asset> read = new java.util.HashMap<>();
    FILES.forEach((name, type) -> read.put(name, new Asset(load(name), type)));
    this.assets = Map.copyOf(read);
  }

  Asset get(String name) {
    return assets.get(name);
  }

  private static byte[] load(String name) {
    try (InputStream in = Assets.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the console's " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console's " + name, e);
    }
  }
}
