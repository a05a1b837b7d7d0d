package dev.keel.mcp.core;

/** The token of work nobody can cancel. */
enum NeverCancelled implements CancellationToken {
  INSTANCE;

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public String reason() {
    return null;
  }

  @Override
  public Registration onCancel(Runnable action) {
    return () -> { };
  }
}
