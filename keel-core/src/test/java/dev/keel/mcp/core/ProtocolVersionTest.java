package dev.keel.mcp.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProtocolVersionTest {

  @Test
  void negotiateKeepsAKnownLegacyVersion() {
    assertThat(ProtocolVersion.negotiate("2025-03-26")).isEqualTo("2025-03-26");
    assertThat(ProtocolVersion.negotiate("2025-06-18")).isEqualTo("2025-06-18");
    assertThat(ProtocolVersion.negotiate("2025-11-25")).isEqualTo("2025-11-25");
  }

  @Test
  void negotiateOffersTheNewestLegacyVersionForAnUnknownOne() {
    assertThat(ProtocolVersion.negotiate("2024-11-05")).isEqualTo("2025-11-25");
    assertThat(ProtocolVersion.negotiate("2099-01-01")).isEqualTo("2025-11-25");
    assertThat(ProtocolVersion.negotiate(null)).isEqualTo("2025-11-25");
  }

  @Test
  void isLegacyKnowsOnlyTheThreeLegacyRevisions() {
    assertThat(ProtocolVersion.LEGACY).containsExactly("2025-11-25", "2025-06-18", "2025-03-26");
    assertThat(ProtocolVersion.isLegacy("2025-06-18")).isTrue();
    assertThat(ProtocolVersion.isLegacy("2024-11-05")).isFalse();
    assertThat(ProtocolVersion.isLegacy(null)).isFalse();
  }

  @Test
  void atLeastComparesDates() {
    assertThat(ProtocolVersion.atLeast("2025-11-25", "2025-06-18")).isTrue();
    assertThat(ProtocolVersion.atLeast("2025-06-18", "2025-06-18")).isTrue();
    assertThat(ProtocolVersion.atLeast("2025-03-26", "2025-06-18")).isFalse();
    assertThat(ProtocolVersion.atLeast(null, "2025-03-26")).isFalse();
  }
}
