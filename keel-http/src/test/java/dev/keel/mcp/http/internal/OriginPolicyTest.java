package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The DNS-rebinding defence on its own: every combination of allowlists and binds, the
 * spellings of loopback, and the host names that only look like it.
 */
class OriginPolicyTest {

  static final OriginPolicy LOOPBACK = new OriginPolicy(Set.of(), Set.of(), true);
  static final OriginPolicy PUBLIC = new OriginPolicy(Set.of(), Set.of(), false);

  @Test
  void aLoopbackBindAdmitsLoopbackHostsOnly() {
    for (String host : new String[] {"localhost", "localhost:8080", "127.0.0.1",
        "127.0.0.1:1", "127.1.2.3", "127.9.9.9", "[::1]", "[::1]:9000", "[0:0:0:0:0:0:0:1]", "LOCALHOST"}) {
      assertThat(LOOPBACK.admits(null, host)).as(host).isTrue();
    }
    for (String host : new String[] {"evil.example.com", "127.evil.com", "127.0.0.1.nip.io",
        "localhost.evil.com", "[::2]", "10.0.0.1:80", "127.0.0.x"}) {
      assertThat(LOOPBACK.admits(null, host)).as(host).isFalse();
    }
    // HTTP/1.0 sends no Host: nothing to check
    assertThat(LOOPBACK.admits(null, null)).isTrue();
  }

  @Test
  void aLoopbackBindAdmitsLoopbackOriginsOnly() {
    for (String origin : new String[] {"http://localhost:3000", "http://127.0.0.1",
        "https://[::1]:8443", " http://localhost "}) {
      assertThat(LOOPBACK.admits(origin, "localhost")).as(origin).isTrue();
    }
    for (String origin : new String[] {"http://evil.example.com", "http://127.evil.com",
        "null", "localhost", "http://", "::not a uri::", "http://[::2]"}) {
      assertThat(LOOPBACK.admits(origin, "localhost")).as(origin).isFalse();
    }
  }

  @Test
  void anyOtherBindAdmitsAnOriginOnlyForTheHostItWasSentTo() {
    assertThat(PUBLIC.admits(null, "mcp.example.com")).isTrue();
    assertThat(PUBLIC.admits("https://mcp.example.com", "mcp.example.com:443")).isTrue();
    assertThat(PUBLIC.admits("https://MCP.example.com", "mcp.example.com")).isTrue();
    assertThat(PUBLIC.admits("https://[2001:db8::1]", "[2001:db8::1]:8080")).isTrue();
    assertThat(PUBLIC.admits("https://evil.example.com", "mcp.example.com")).isFalse();
    assertThat(PUBLIC.admits("https://mcp.example.com.evil", "mcp.example.com")).isFalse();
    assertThat(PUBLIC.admits("https://mcp.example.com", null)).isFalse();
    assertThat(PUBLIC.admits("https://[2001:db8::2]", "[2001:db8::1]")).isFalse();
    // an unclosed bracket is its own host name, never a match for a real one
    assertThat(PUBLIC.admits("https://[2001:db8::1]", "[2001:db8::1")).isFalse();
  }

  @Test
  void allowlistsAdmitExactlyTheirEntries() {
    OriginPolicy listed = new OriginPolicy(Set.of("https://App.example.com"),
        Set.of("mcp.example.com", "other.example.com:8443"), false);
    assertThat(listed.admits("https://app.example.com", "mcp.example.com")).isTrue();
    assertThat(listed.admits(" https://app.example.com ", "mcp.example.com:1234")).isTrue();
    assertThat(listed.admits(null, "other.example.com:8443")).isTrue();
    assertThat(listed.admits(null, "OTHER.example.com:8443")).isTrue();
    assertThat(listed.admits(null, "other.example.com:9999")).isFalse();
    assertThat(listed.admits("https://app.example.com:8443", "mcp.example.com")).isFalse();
    assertThat(listed.admits("https://app.example.com", "evil.example.com")).isFalse();
    assertThat(listed.admits("https://app.example.com", null)).isFalse();
    // a host allowlist overrides the loopback rule, in both directions
    OriginPolicy loopbackListed = new OriginPolicy(Set.of(), Set.of("mcp.internal"), true);
    assertThat(loopbackListed.admits(null, "mcp.internal")).isTrue();
    assertThat(loopbackListed.admits(null, "localhost")).isFalse();
  }

  @Test
  void theRememberedHostAdmitsOnlyItselfAndNeverAnOriginForIt() {
    OriginPolicy policy = new OriginPolicy(Set.of(), Set.of(), true);
    for (int i = 0; i < 3; i++) {
      assertThat(policy.admits(null, "127.0.0.1:8080")).isTrue();
      assertThat(policy.admits(null, "evil.example.com")).isFalse();
      assertThat(policy.admits(null, "127.0.0.1:8080")).isTrue();
      // a host already admitted does not carry a foreign origin through
      assertThat(policy.admits("http://evil.example.com", "127.0.0.1:8080")).isFalse();
      assertThat(policy.admits(null, "127.0.0.1.nip.io")).isFalse();
    }
    OriginPolicy listed = new OriginPolicy(Set.of(), Set.of("mcp.example.com"), false);
    assertThat(listed.admits(null, "mcp.example.com")).isTrue();
    assertThat(listed.admits(null, "mcp.example.com.evil")).isFalse();
    assertThat(listed.admits(null, "MCP.example.com")).isTrue();
    assertThat(listed.admits(null, "other.example.com")).isFalse();
  }

}
