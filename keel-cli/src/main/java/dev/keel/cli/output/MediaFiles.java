package dev.keel.cli.output;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

/**
 * Saves binary content from a result (images, audio, blobs) to fresh files, so a person can
 * open them. The file name is never the server's: a server could name {@code ../.bashrc}. It is
 * {@code keel-} and random hex, with an extension chosen from a fixed list by the MIME type
 * ({@code .bin} for anything else); an existing file is never overwritten.
 */
public final class MediaFiles {

  private static final Map<String, String> EXTENSIONS = Map.ofEntries(
      Map.entry("image/png", ".png"), Map.entry("image/jpeg", ".jpg"),
      Map.entry("image/gif", ".gif"), Map.entry("image/webp", ".webp"),
      Map.entry("image/svg+xml", ".svg"), Map.entry("image/bmp", ".bmp"),
      Map.entry("audio/wav", ".wav"), Map.entry("audio/x-wav", ".wav"),
      Map.entry("audio/wave", ".wav"), Map.entry("audio/mpeg", ".mp3"),
      Map.entry("audio/ogg", ".ogg"), Map.entry("audio/webm", ".webm"),
      Map.entry("audio/flac", ".flac"), Map.entry("application/pdf", ".pdf"),
      Map.entry("application/json", ".json"), Map.entry("text/plain", ".txt"),
      Map.entry("application/zip", ".zip"));

  private final Path dir;
  private final SecureRandom random = new SecureRandom();

  /** Saves into {@code dir} (the current directory when null). */
  public MediaFiles(Path dir) {
    this.dir = dir == null ? Path.of("") : dir;
  }

  /** Returns the extension for a MIME type, {@code .bin} when it is not a known one. */
  static String extension(String mimeType) {
    if (mimeType == null) {
      return ".bin";
    }
    String base = mimeType.toLowerCase(Locale.ROOT).split(";", 2)[0].strip();
    return EXTENSIONS.getOrDefault(base, ".bin");
  }

  /**
   * Decodes base64 {@code data} and writes it to a new file.
   *
   * @return the path written
   * @throws IOException when the file cannot be written
   * @throws IllegalArgumentException when {@code data} is not base64
   */
  public Path save(String data, String mimeType) throws IOException {
    byte[] bytes = Base64.getMimeDecoder().decode(data == null ? "" : data);
    String ext = extension(mimeType);
    for (int attempt = 0; ; attempt++) {
      byte[] stem = new byte[4];
      random.nextBytes(stem);
      Path file = dir.resolve("keel-" + HexFormat.of().formatHex(stem) + ext);
      try {
        return Files.write(file, bytes, java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        if (attempt > 8) {
          throw e;
        }
      }
    }
  }
}
