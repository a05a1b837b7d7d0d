package dev.keel.mcp.client;

/** Receives a call's progress reports, in order, while the call runs. */
@FunctionalInterface
public interface ProgressListener {

  /**
   * Called for each progress notification of the call.
   *
   * @param total the total, or null when the server does not know it
   * @param message a description, or null
   */
  void onProgress(double progress, Double total, String message);
}
