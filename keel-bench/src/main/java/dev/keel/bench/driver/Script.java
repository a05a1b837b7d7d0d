package dev.keel.bench.driver;

/**
 * What one connection of the load does: a small state machine that gives the next request and
 * judges each response. Run by {@link LoadEngine} on its single thread.
 */
abstract class Script {

  /** What a response means for the measurement. */
  enum Outcome {
    /** A step inside an operation (initialize before the call, say): not counted. */
    STEP,
    /** An operation completed; its latency runs from {@link #opStart()}. */
    OK,
    /** An operation failed. */
    ERROR
  }

  private long opStart;

  /** Returns the next request, or null when this connection is done. */
  abstract byte[] next(long now);

  /** Judges a complete response. */
  abstract Outcome done(ResponseParser response, long now);

  /** The connection broke while a request was out; the script starts its cycle over. */
  void broken() {}

  /** Marks the start of an operation. */
  final void startOp(long now) {
    opStart = now;
  }

  final long opStart() {
    return opStart;
  }
}
