package dev.keel.mcp.http.internal.oauth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.internal.Fingerprints;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Opaque access tokens, asked about at the authorization server's introspection endpoint
 * (RFC 7662) with this resource server's own client credentials. An answer counts only when it
 * says {@code active}, names this resource in {@code aud}, has not expired (give or take the
 * skew) and, when it names an issuer, names ours. Active answers are cached by the token's
 * SHA-256, never longer than the token lives nor than {@code maxCache}; the token itself is never
 * kept.
 */
final class Introspection {

  private static final Logger LOG = LoggerFactory.getLogger(Introspection.class);

  private record Answer(AccessTokens.Token token, Instant until) {}

  private final URI endpoint;
  private final String clientId;
  private final String clientSecret;
  private final String issuer;
  private final String audience;
  private final Duration skew;
  private final Duration maxCache;
  private final Fetcher fetcher;
  private final Cache<String, Answer> cache;

  Introspection(URI endpoint, String clientId, String clientSecret, URI issuer,
      String audience, Duration skew, Duration maxCache, Fetcher fetcher) {
    Fetcher.requireSafe(endpoint);
    this.endpoint = endpoint;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.issuer = issuer.toString();
    this.audience = audience;
    this.skew = skew;
    this.maxCache = maxCache;
    this.fetcher = fetcher;
    this.cache = Caffeine.newBuilder().maximumSize(10_000).expireAfter(new Expiry<String, Answer>() {
      @Override
      public long expireAfterCreate(String key, Answer value, long now) {
        return Math.max(0, Duration.between(Instant.now(), value.until()).toNanos());
      }

      @Override
      public long expireAfterUpdate(String key, Answer value, long now, long current) {
        return expireAfterCreate(key, value, now);
      }

      @Override
      public long expireAfterRead(String key, Answer value, long now, long current) {
        return current;
      }
    }).build();
  }

  /** Returns what the token is, or null when it is not an active token for this resource. */
  AccessTokens.Token verify(String token) {
    String key = Fingerprints.sha256(token);
    Answer cached = cache.getIfPresent(key);
    Instant now = Instant.now();
    if (cached != null && now.isBefore(cached.until())) {
      return cached.token();
    }
    JsonNode answer;
    try {
      answer = McpJson.standard().parseObject(fetcher.postForm(endpoint,
          "token=" + Fetcher.formEncode(token) + "&token_type_hint=access_token", clientId,
          clientSecret));
    } catch (RuntimeException e) {
      LOG.warn("token introspection at {} failed: {}", endpoint, e.getMessage());
      return null;
    }
    if (!answer.path("active").asBoolean(false)) {
      return null;
    }
    JsonNode iss = answer.get("iss");
    if (iss != null && !(iss.isString() && iss.stringValue().equals(issuer))) {
      LOG.debug("refused an introspected token: another issuer");
      return null;
    }
    if (!names(answer.get("aud"), audience)) {
      LOG.debug("refused an introspected token: not for this resource");
      return null;
    }
    JsonNode exp = answer.get("exp");
    if (exp == null || !exp.canConvertToLong()
        || Instant.ofEpochSecond(exp.asLong()).plus(skew).isBefore(now)) {
      LOG.debug("refused an introspected token: expired or without exp");
      return null;
    }
    String subject = firstString(answer, "sub", "client_id", "username");
    if (subject == null) {
      return null;
    }
    AccessTokens.Token verified = new AccessTokens.Token(issuer, subject, scopes(answer.get("scope")),
        claims(answer));
    Instant until = Instant.ofEpochSecond(exp.asLong());
    Instant limit = now.plus(maxCache);
    cache.put(key, new Answer(verified, until.isBefore(limit) ? until : limit));
    return verified;
  }

  private static boolean names(JsonNode aud, String audience) {
    if (aud == null) {
      return false;
    }
    if (aud.isString()) {
      return aud.stringValue().equals(audience);
    }
    if (aud.isArray()) {
      for (JsonNode one : aud) {
        if (one.isString() && one.stringValue().equals(audience)) {
          return true;
        }
      }
    }
    return false;
  }

  private static String firstString(JsonNode answer, String... names) {
    for (String name : names) {
      JsonNode value = answer.get(name);
      if (value != null && value.isString() && !value.stringValue().isBlank()) {
        return value.stringValue();
      }
    }
    return null;
  }

  private static Set<String> scopes(JsonNode scope) {
    Set<String> scopes = new LinkedHashSet<>();
    if (scope != null && scope.isString()) {
      for (String one : scope.stringValue().trim().split("\\s+")) {
        if (!one.isEmpty()) {
          scopes.add(one);
        }
      }
    }
    return Set.copyOf(scopes);
  }

  private static Map<String, Object> claims(JsonNode answer) {
    Map<String, Object> out = new LinkedHashMap<>();
    answer.properties().forEach(e -> {
      JsonNode v = e.getValue();
      if (v.isString()) {
        out.put(e.getKey(), v.stringValue());
      } else if (v.isIntegralNumber()) {
        out.put(e.getKey(), v.asLong());
      } else if (v.isBoolean()) {
        out.put(e.getKey(), v.asBoolean());
      } else if (!v.isNull()) {
        out.put(e.getKey(), McpJson.standard().write(v));
      }
    });
    return out;
  }
}
