package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The access policy file: who sees what, and errors that say what is wrong. */
class AccessPolicyTest {

  @Test
  void principalsSeeTheirOwnGrantsTheDefaultEntryOrNothing() {
    AccessPolicy policy = AccessPolicy.parse("{\"principals\":{"
        + "\"analyst\":{\"tables\":{\"Customers\":[\"id\",\"Name\"],\"orders\":\"*\"}},"
        + "\"admin\":{\"tables\":\"*\"},"
        + "\"*\":{\"tables\":{\"products\":\"*\"}}}}");
    TableAccess analyst = policy.accessFor("analyst");
    assertThat(analyst.mayRead("customers")).isTrue();
    assertThat(analyst.columnLimit("customers")).contains(Set.of("id", "name"));
    assertThat(analyst.columnLimit("orders")).isEmpty();
    assertThat(analyst.mayRead("products")).isFalse();
    assertThat(policy.accessFor("admin").everything()).isTrue();
    assertThat(policy.accessFor("someone").mayRead("products")).isTrue();
    assertThat(policy.accessFor("someone").mayRead("orders")).isFalse();
    assertThat(AccessPolicy.builder().build().accessFor("x").mayRead("orders")).isFalse();
    assertThat(AccessPolicy.allowAll().accessFor("x").everything()).isTrue();
  }

  @Test
  void invalidPoliciesAreRefusedWithTheReason() {
    assertThatThrownBy(() -> AccessPolicy.parse("{")).hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> AccessPolicy.parse("{}")).hasMessageContaining("\"principals\"");
    assertThatThrownBy(() -> AccessPolicy.parse("{\"principals\":{\"a\":{}}}"))
        .hasMessageContaining("principal a has no \"tables\"");
    assertThatThrownBy(() -> AccessPolicy.parse(
        "{\"principals\":{\"a\":{\"tables\":{\"t\":[]}}}}"))
        .hasMessageContaining("principal a, table t");
  }
}
