package dev.keel.mcp.client;

/**
 * A subscription to one resource's changes. In the legacy era it lives in the session (and is
 * renewed if the session is replaced); in the stateless era it is an open
 * {@code subscriptions/listen} request. Closing it unsubscribes.
 */
public interface ResourceSubscription extends AutoCloseable {

  /** Returns the resource's URI. */
  String uri();

  /** Stops the subscription. Idempotent. */
  @Override
  void close();
}
