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

  @Test
  void aPolicyAdmitsOnlyPrincipalsItNamesUnlessItHasADefaultEntry() {
    AccessPolicy named = AccessPolicy.builder().grant("alice", "orders").build();
    assertThat(named.allowsAll()).isFalse();
    assertThat(named.admits("alice")).isTrue();
    assertThat(named.admits("mallory")).isFalse();
    AccessPolicy withDefault = AccessPolicy.builder().grant("alice", "orders")
        .grant("*", "customers").build();
    assertThat(withDefault.admits("mallory")).isTrue();
    assertThat(withDefault.accessFor("mallory").mayRead("customers")).isTrue();
    assertThat(withDefault.accessFor("mallory").mayRead("orders")).isFalse();
    assertThat(AccessPolicy.allowAll().allowsAll()).isTrue();
    assertThat(AccessPolicy.allowAll().admits("anyone")).isTrue();
  }

  @Test
  void aWholeTableGrantIsNeverNarrowedByAColumnGrantBeforeOrAfterIt() {
    AccessPolicy policy = AccessPolicy.builder()
        .grant("alice", "orders", "id").grant("alice", "orders")
        .grant("bob", "orders").grant("bob", "orders", "id")
        .grant("carol", "orders", "id").grant("carol", "orders", "total")
        .build();
    assertThat(policy.accessFor("alice").columnLimit("orders")).isEmpty();
    assertThat(policy.accessFor("bob").columnLimit("orders")).isEmpty();
    assertThat(policy.accessFor("carol").columnLimit("orders")).get()
        .isEqualTo(java.util.Set.of("id", "total"));
  }

  @Test
  void theBuilderChainsAndKeepsEveryGrantAndRule() {
    AccessPolicy policy = AccessPolicy.builder()
        .grantAll("root")
        .grant("alice", "orders", "id")
        .rows("alice", "orders", "owner = '${principal.id}'")
        .build();
    assertThat(policy.accessFor("root").everything()).isTrue();
    assertThat(policy.accessFor("alice").rowRule("orders"))
        .contains("owner = '${principal.id}'");
    assertThat(policy.accessFor("alice").rowRule("ORDERS"))
        .contains("owner = '${principal.id}'");
    assertThat(policy.accessFor("alice").rowRule("customers")).isEmpty();
  }

  @Test
  void aPolicyFileIsReadAndAMissingOneNamed(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("policy.json");
    java.nio.file.Files.writeString(file,
        "{\"principals\":{\"alice\":{\"tables\":{\"orders\":[\"id\"]}}}}");
    assertThat(AccessPolicy.load(file).accessFor("alice").mayRead("orders")).isTrue();
    assertThatThrownBy(() -> AccessPolicy.load(dir.resolve("missing.json")))
        .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("missing.json");
  }
}
