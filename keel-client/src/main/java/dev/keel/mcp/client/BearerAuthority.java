package dev.keel.mcp.client;

import java.net.URI;

/**
 * Where the HTTP transport gets its {@code Authorization} header and what it asks when a server
 * refuses one: the seam between the transport and the OAuth grants.
 */
interface BearerAuthority {

  /** Returns the header value to send to {@code server}, or null before the first token. */
  String authorization(URI server);

  /**
   * Gets a new token after {@code server} refused {@code rejected} with {@code status} and
   * {@code challenge}.
   *
   * @return the header value to send again with, or null when there is none to be had
   * @throws TransportException naming why no token could be had
   */
  String challenged(URI server, int status, String challenge, String rejected);
}
