package dev.keel.mcp.http.internal;

import java.util.Arrays;

/**
 * The buffer of one body read in pieces. It grows only with the bytes actually received
 * (doubling from {@value #FIRST} bytes), never to a length a client merely declared, and at most
 * to the declared length or to limit+1 bytes: the one byte more than allowed that proves a body
 * too large. Not thread-safe: its read guards it.
 *
 * <p>Capacity past the first {@value #UNCOUNTED} bytes is reserved from the servlet's {@link
 * BodyBudget} before the buffer grows into it, and {@link #release} gives it all back. The first
 * {@value #UNCOUNTED} bytes, which hold most whole requests, are not counted: otherwise slow
 * clients that spent the budget would get every other client's small request refused (503) just
 * because its body came a packet after its head. What a connection costs below that is of the
 * order of what the container spends on each connection anyway (its request head buffer), and
 * the body timeout bounds how long it lasts.
 */
final class BodyBuffer {

  /** The first capacity: small, since a slow client may send a single byte. */
  static final int FIRST = 512;
  /** The capacity every body has without drawing on the budget. */
  static final int UNCOUNTED = 8192;
  private static final byte[] EMPTY = new byte[0];

  private final int maxBytes;
  private final long declared;
  private final BodyBudget budget;
  private byte[] data = EMPTY;
  private int size;
  private long reserved;

  /**
   * Creates an empty buffer.
   *
   * @param maxBytes the largest body
   * @param declared the length the request declared, or -1
   */
  BodyBuffer(int maxBytes, long declared, BodyBudget budget) {
    this.maxBytes = maxBytes;
    this.declared = declared;
    this.budget = budget;
  }

  /**
   * Makes room for the next read, growing a full buffer. Returns false, leaving it as it is,
   * when the budget cannot cover the growth.
   */
  boolean makeRoom() {
    if (size < data.length) {
      return true;
    }
    long bound = declared >= 0 ? declared : (long) maxBytes + 1;
    int capacity = (int) Math.min(bound, Math.max(FIRST, 2L * data.length));
    if (capacity <= data.length) {
      return false;
    }
    long more = Math.max(0, capacity - UNCOUNTED) - reserved;
    if (more > 0 && !budget.reserve(more)) {
      return false;
    }
    reserved += Math.max(0, more);
    data = Arrays.copyOf(data, capacity);
    return true;
  }

  /** Returns the array to read into, at {@link #size()}, up to {@link #room()} bytes. */
  byte[] array() {
    return data;
  }

  int size() {
    return size;
  }

  int room() {
    return data.length - size;
  }

  /** Records that a read put {@code n} bytes at {@link #size()}. */
  void added(int n) {
    size += n;
  }

  /** True once the declared length has arrived. */
  boolean complete() {
    return declared >= 0 && size >= declared;
  }

  /** True once more than the limit has arrived. */
  boolean tooLarge() {
    return size > maxBytes;
  }

  /** Returns how many bytes of the budget this buffer holds. */
  long reserved() {
    return reserved;
  }

  /** Returns the body (exactly {@link #size()} bytes) and gives the budget back. */
  byte[] take() {
    byte[] body = size == data.length ? data : Arrays.copyOf(data, size);
    release();
    return body;
  }

  /** Drops the bytes and gives the budget back; idempotent. */
  void release() {
    data = EMPTY;
    budget.release(reserved);
    reserved = 0;
  }
}
