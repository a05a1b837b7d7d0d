package dev.keel.agent.internal.audit;

import dev.keel.agent.AuditTable;
import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.List;
import dev.keel.agent.AuditedStatement;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent's record of every decision it takes about a statement, one JSON object per line:
 * when, whose (the principal's id and fingerprint, never a credential), which source and tool,
 * the statement's text and a SHA-256 digest of it (so repeats can be grouped without comparing
 * texts), how long, how many rows, and the outcome with its reason. Parameter values are left
 * out: they are the caller's data, and the statement's text says what was asked. Results are
 * never written, so no value of a column, hidden or not, reaches the file.
 *
 * <p>Lines are appended and flushed one at a time under a lock, so a line is never torn and a
 * crash loses at most the line being written. A file that cannot be written is logged once
 * and the agent goes on serving: refusing every call because the disk is full would turn an
 * audit problem into an outage, and the log says so loudly. A table ({@link AuditTable}) gets
 * the same entries, written off the callers' threads by {@link AuditTableSink}.
 */
public final class AuditTrail implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AuditTrail.class);
  private static final AuditTrail OFF = new AuditTrail(null, null, null, null);
  /** How many decisions {@link #recent()} keeps. */
  public static final int RECENT = 200;
  /** Where {@link #recent()} cuts a statement. */
  public static final int RECENT_CHARS = 500;

  private final Path file;
  private final Writer out;
  private final AuditTableSink table;
  private final RecentStatements recent;
  private boolean failed;

  private AuditTrail(Path file, Writer out, AuditTableSink table, RecentStatements recent) {
    this.file = file;
    this.out = out;
    this.table = table;
    this.recent = recent;
  }

  /** Returns a trail that records nothing. */
  public static AuditTrail off() {
    return OFF;
  }

  /**
   * Returns a trail appending to {@code file}, created when missing.
   *
   * @throws UncheckedIOException naming the file when it cannot be opened
   */
  public static AuditTrail toFile(Path file) {
    return of(file, null);
  }

  /**
   * Returns a trail appending to {@code file} (created when missing) and writing to
   * {@code table}; either may be null. Either way it keeps the last {@link #RECENT} decisions
   * in memory ({@link #recent()}).
   *
   * @throws UncheckedIOException naming the file when it cannot be opened
   * @throws IllegalStateException naming the table when it cannot be used
   */
  public static AuditTrail of(Path file, AuditTable table) {
    Writer out = null;
    if (file != null) {
      try {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open the audit file " + file, e);
      }
    }
    try {
      return new AuditTrail(file, out, table == null ? null : AuditTableSink.start(table),
          new RecentStatements(RECENT, RECENT_CHARS));
    } catch (RuntimeException e) {
      if (out != null) {
        try {
          out.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /** Returns true when this trail records somewhere (a file, a table or its memory). */
  public boolean enabled() {
    return out != null || table != null || recent != null;
  }

  /** Returns the last decisions, newest first; empty for a trail that records nothing. */
  public List<AuditedStatement> recent() {
    return recent == null ? List.of() : recent.newestFirst();
  }

  /** Writes one decision. */
  public void record(AuditEntry entry) {
    if (!enabled()) {
      return;
    }
    Instant now = Instant.now();
    if (recent != null) {
      recent.add(now, entry);
    }
    if (out == null && table == null) {
      return;
    }
    String digest = entry.statement() == null ? null : digest(entry.statement());
    if (table != null) {
      table.offer(new AuditTableSink.Row(now, entry, digest));
    }
    if (out == null) {
      return;
    }
    ObjectNode line = JsonNodeFactory.instance.objectNode();
    line.put("time", now.toString());
    line.put("principal", entry.principal());
    line.put("fingerprint", entry.fingerprint());
    line.put("source", entry.source());
    line.put("tool", entry.tool());
    if (entry.statement() != null) {
      line.put("digest", digest);
      line.put("statement", entry.statement());
    }
    line.put("outcome", entry.outcome().word());
    if (entry.reason() != null) {
      line.put("reason", entry.reason());
    }
    line.put("millis", entry.millis());
    if (entry.rows() >= 0) {
      line.put("rows", entry.rows());
    }
    String text = McpJson.standard().write(line);
    synchronized (this) {
      try {
        out.write(text);
        out.write('\n');
        out.flush();
      } catch (IOException e) {
        if (!failed) {
          failed = true;
          LOG.error("the audit file {} cannot be written; decisions are not being recorded",
              file, e);
        }
      }
    }
  }

  /** Returns the SHA-256 of a statement's text, in hex. */
  static String digest(String statement) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(statement.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public synchronized void close() {
    if (table != null) {
      table.close();
    }
    if (out == null) {
      return;
    }
    try {
      out.close();
    } catch (IOException e) {
      LOG.debug("closing the audit file failed", e);
    }
  }
}
