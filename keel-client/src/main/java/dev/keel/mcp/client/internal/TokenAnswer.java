package dev.keel.mcp.client.internal;

import java.time.Instant;
import tools.jackson.databind.node.ObjectNode;

/**
 * A token endpoint's successful answer, as both grants keep it.
 *
 * @param accessToken the bearer token
 * @param refreshToken the refresh token, or null when none was issued
 * @param expires when to stop sending the access token: a little before the server's
 *     {@code expires_in} (one hour when it names none), so a token never expires on its way
 */
public record TokenAnswer(String accessToken, String refreshToken, Instant expires) {

  private static final long DEFAULT_SECONDS = 3600;
  private static final long MARGIN_SECONDS = 5;

  /**
   * Reads an answer.
   *
   * @throws IllegalStateException when it holds no bearer access token
   */
  public static TokenAnswer of(ObjectNode answer) {
    String access = answer.path("access_token").asString("");
    if (access.isEmpty() || !"bearer".equalsIgnoreCase(answer.path("token_type").asString(""))) {
      throw new IllegalStateException("the authorization server answered no bearer token");
    }
    long seconds = answer.path("expires_in").asLong(DEFAULT_SECONDS);
    return new TokenAnswer(access, answer.path("refresh_token").asString(null),
        Instant.now().plusSeconds(Math.max(1, seconds - MARGIN_SECONDS)));
  }

  /** Returns true until it expires. */
  public boolean live() {
    return Instant.now().isBefore(expires);
  }
}
