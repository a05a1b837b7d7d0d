package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17, Done when 1: three {@code keel fixtures --redis} nodes behind a real round-robin
 * HAProxy with no stickiness. Each test puts the parts of one exchange on different nodes on
 * purpose ({@link ClusterNodes#steer}) and checks which node the balancer really chose.
 */
class ThreeNodesTest {

  private static final String ALICE = ClusterNodes.keys().get("alice");
  private static final String BOB = ClusterNodes.keys().get("bob");
  private static ClusterNodes cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = ClusterNodes.start("--api-key", "alice=" + ALICE, "--api-key", "bob=" + BOB);
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The two nodes other than {@code name}. */
  private static List<Character> others(String name) {
    List<Character> out = new ArrayList<>();
    for (char c : ClusterNodes.NAMES.toCharArray()) {
      if (c != name.charAt(0)) {
        out.add(c);
      }
    }
    return out;
  }

  @Test
  void initializeLandsOnOneNodeAndCallsOnTheOthers() throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{}");
    String home = init.servedBy();
    Set<String> servedBy = new HashSet<>();
    for (int i = 1; i <= 6; i++) {
      ClusterNodes.Answer a = cluster.post(init.session(), ALICE,
          ClusterNodes.call(i, "echo", "{\"text\":\"call " + i + "\"}"));
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.json().at("/result/content/0/text").asString()).isEqualTo("call " + i);
      servedBy.add(a.servedBy());
    }
    assertThat(servedBy).as("the calls reached every node, not only %s", home)
        .containsAll(others(home).stream().map(String::valueOf).toList());
  }

  @Test
  void aCancellationSentThroughAThirdNodeStopsTheHandlerWithin200Ms() throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{}");
    List<Character> others = others(init.servedBy());
    cluster.steer(others.get(0));
    ClusterNodes.Stream call = cluster.open(init.session(), ALICE,
        ClusterNodes.call(7, "test_sleep", "{\"ms\":30000}"));
    assertThat(call.servedBy()).isEqualTo(String.valueOf(others.get(0)));
    // the stream is open as SSE once the handler ran silent for 200 ms: it sleeps now
    Thread.sleep(300);
    cluster.steer(others.get(1));
    long sent = System.nanoTime();
    ClusterNodes.Answer cancel = cluster.post(init.session(), ALICE,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
            + "{\"requestId\":7,\"reason\":\"cluster test\"}}");
    assertThat(cancel.servedBy()).isEqualTo(String.valueOf(others.get(1)));
    assertThat(cancel.status()).isEqualTo(202);
    long ended = call.ended.get(5, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(ended - sent)).as("from the cancellation to the end of the call")
        .isLessThan(Duration.ofMillis(200));
    assertThat(call.events).noneMatch(e -> e.data() != null && e.data().contains("slept"));
    // the session goes on
    ClusterNodes.Answer after = cluster.post(init.session(), ALICE,
        ClusterNodes.call(8, "echo", "{\"text\":\"still here\"}"));
    assertThat(after.json().at("/result/content/0/text").asString()).isEqualTo("still here");
  }

  @Test
  void aGetStreamHeldOnOneNodeReceivesANotificationRaisedOnAnother() throws Exception {
    ClusterNodes.Answer listener = cluster.initialize(ALICE, "{}");
    String home = listener.servedBy();
    cluster.steer(others(home).get(0));
    try (ClusterNodes.Stream stream = cluster.get(listener.session(), ALICE, null)) {
      assertThat(stream.response.statusCode()).isEqualTo(200);
      assertThat(stream.servedBy()).isNotEqualTo(home);
      ClusterNodes.Answer sub = cluster.post(listener.session(), ALICE, "{\"jsonrpc\":\"2.0\","
          + "\"id\":1,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://static-text\"}}");
      assertThat(sub.status()).as(sub.body()).isEqualTo(200);
      // a session of another principal, held by another node, changes the resource
      ClusterNodes.Answer raiser;
      cluster.steer(ClusterNodes.next(home));
      raiser = cluster.initialize(BOB, "{}");
      assertThat(raiser.servedBy()).isNotEqualTo(home);
      ClusterNodes.Answer touch = cluster.post(raiser.session(), BOB,
          ClusterNodes.call(2, "touch_resource", "{\"uri\":\"test://static-text\"}"));
      assertThat(touch.json().at("/result/content/0/text").asString()).isEqualTo("told 0 here");
      ClusterNodes.Sse.Event event = stream.next(Duration.ofSeconds(10));
      assertThat(event.json().path("method").asString())
          .isEqualTo("notifications/resources/updated");
      assertThat(event.json().at("/params/uri").asString()).isEqualTo("test://static-text");
    }
  }

  @Test
  void aStreamCutMidCallResumesOnAnotherNodeWithNothingLostOrRepeated() throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{}");
    String home = init.servedBy();
    char first = others(home).get(0);
    cluster.steer(first);
    List<Integer> progress = new ArrayList<>();
    String lastId;
    try (ClusterNodes.Stream call = cluster.open(init.session(), ALICE,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ticks\","
            + "\"arguments\":{\"n\":12,\"ms\":100},\"_meta\":{\"progressToken\":\"t\"}}}")) {
      assertThat(call.servedBy()).isEqualTo(String.valueOf(first));
      ClusterNodes.Sse.Event e;
      do {
        e = call.next(Duration.ofSeconds(10));
        if (e.json().path("method").asString().equals("notifications/progress")) {
          progress.add(e.json().at("/params/progress").asInt());
        }
      } while (progress.size() < 3);
      lastId = e.id();
    }
    assertThat(lastId).as("resumable events carry ids").isNotBlank();
    // resumed through the node after the one that carried the stream
    char second = ClusterNodes.next(String.valueOf(first));
    cluster.steer(second);
    JsonNode result = null;
    try (ClusterNodes.Stream resumed = cluster.get(init.session(), ALICE, lastId)) {
      assertThat(resumed.servedBy()).isEqualTo(String.valueOf(second));
      while (result == null) {
        JsonNode m = resumed.next(Duration.ofSeconds(10)).json();
        if (m.path("method").asString().equals("notifications/progress")) {
          progress.add(m.at("/params/progress").asInt());
        } else if (m.has("result")) {
          result = m;
        }
      }
    }
    assertThat(progress).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    assertThat(result.at("/result/content/0/text").asString()).isEqualTo("ticked 12");
  }

  @Test
  void anElicitationAnsweredThroughAnotherNodeReachesTheWaitingHandler() throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{\"elicitation\":{}}");
    String home = init.servedBy();
    char asked = others(home).get(0);
    cluster.steer(asked);
    try (ClusterNodes.Stream call = cluster.open(init.session(), ALICE,
        ClusterNodes.call(4, "test_elicitation", "{\"message\":\"Who are you?\"}"))) {
      assertThat(call.servedBy()).isEqualTo(String.valueOf(asked));
      JsonNode question = call.next(Duration.ofSeconds(10)).json();
      assertThat(question.path("method").asString()).isEqualTo("elicitation/create");
      char answering = others(home).get(1);
      cluster.steer(answering);
      ClusterNodes.Answer answer = cluster.post(init.session(), ALICE, "{\"jsonrpc\":\"2.0\","
          + "\"id\":" + question.get("id") + ",\"result\":{\"action\":\"accept\",\"content\":"
          + "{\"username\":\"cluster-user\",\"email\":\"user@example.com\"}}}");
      assertThat(answer.servedBy()).isEqualTo(String.valueOf(answering));
      assertThat(answer.status()).as(answer.body()).isEqualTo(202);
      JsonNode result = call.next(Duration.ofSeconds(10)).json();
      assertThat(result.at("/result/content/0/text").asString()).contains("cluster-user")
          .contains("user@example.com");
    }
  }

  @Test
  void anotherPrincipalIsRefusedOnEveryNodeWithTheUnknownSessionAnswer() throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{}");
    ClusterNodes.Answer unknown = cluster.post("made-up-session-id-0000000000000000000000000",
        BOB, ClusterNodes.call(1, "echo", "{\"text\":\"x\"}"));
    assertThat(unknown.status()).isEqualTo(404);
    Set<String> refusedOn = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      ClusterNodes.Answer a = cluster.post(init.session(), BOB,
          ClusterNodes.call(i, "echo", "{\"text\":\"bob\"}"));
      assertThat(a.status()).as("bob on node %s", a.servedBy()).isEqualTo(404);
      assertThat(a.body()).isEqualTo(unknown.body());
      refusedOn.add(a.servedBy());
    }
    assertThat(refusedOn).containsExactlyInAnyOrder("a", "b", "c");
    for (int i = 0; i < 3; i++) {
      ClusterNodes.Stream get = cluster.get(init.session(), BOB, null);
      assertThat(get.response.statusCode()).as("bob's GET on %s", get.servedBy()).isEqualTo(404);
      get.close();
    }
    // alice's session is untouched
    ClusterNodes.Answer mine = cluster.post(init.session(), ALICE,
        ClusterNodes.call(9, "echo", "{\"text\":\"mine\"}"));
    assertThat(mine.json().at("/result/content/0/text").asString()).isEqualTo("mine");
  }

  @Test
  void inv10_aReinitializeByAnotherPrincipalOnAnyNodeDoesNotTakeTheSessionOver()
      throws Exception {
    ClusterNodes.Answer alices = cluster.initialize(ALICE, "{}");
    Set<String> refusedOn = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ClusterNodes.Answer bob = cluster.post(alices.session(), BOB, "{\"jsonrpc\":\"2.0\",\"id\":1,"
          + "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"bob\",\"version\":\"1\"}}}");
      assertThat(bob.status()).as("bob's initialize on %s", bob.servedBy()).isEqualTo(404);
      assertThat(bob.session()).isNull();
      refusedOn.add(bob.servedBy());
    }
    assertThat(refusedOn).hasSize(3);
    for (int i = 0; i < 3; i++) {
      ClusterNodes.Answer mine = cluster.post(alices.session(), ALICE,
          ClusterNodes.call(i, "echo", "{\"text\":\"still alice\"}"));
      assertThat(mine.json().at("/result/content/0/text").asString()).isEqualTo("still alice");
    }
  }

  @Test
  void inv15_inv16_aCancellationFromAnotherSessionOrForAnotherIdOnAnyNodeChangesNothing()
      throws Exception {
    ClusterNodes.Answer init = cluster.initialize(ALICE, "{}");
    ClusterNodes.Answer alicesOther = cluster.initialize(ALICE, "{}");
    ClusterNodes.Answer bobs = cluster.initialize(BOB, "{}");
    List<Character> others = others(init.servedBy());
    cluster.steer(others.get(0));
    try (ClusterNodes.Stream call = cluster.open(init.session(), ALICE,
        ClusterNodes.call(5, "test_sleep", "{\"ms\":1500}"))) {
      Thread.sleep(300);
      String cancel5 = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
          + "\"params\":{\"requestId\":5,\"reason\":\"foreign\"}}";
      for (int i = 0; i < 3; i++) {
        ClusterNodes.Answer fromBob = cluster.post(bobs.session(), BOB, cancel5);
        assertThat(fromBob.status()).as("bob's cancel on %s", fromBob.servedBy()).isEqualTo(202);
        assertThat(fromBob.body()).isEmpty();
        ClusterNodes.Answer otherSession = cluster.post(alicesOther.session(), ALICE, cancel5);
        assertThat(otherSession.status()).isEqualTo(202);
        ClusterNodes.Answer wrongId = cluster.post(init.session(), ALICE,
            cancel5.replace("\"requestId\":5", "\"requestId\":6"));
        assertThat(wrongId.status()).isEqualTo(202);
        assertThat(cluster.post(init.session(), BOB, cancel5).status())
            .as("naming alice's session does not help bob").isEqualTo(404);
      }
      JsonNode result = call.next(Duration.ofSeconds(10)).json();
      assertThat(result.at("/result/content/0/text").asString()).isEqualTo("slept 1500 ms");
    }
  }

  @Test
  void aListenStreamOnOneNodeReceivesAResourceUpdateRaisedByAStatelessCallOnAnother()
      throws Exception {
    // its own resource: a subscription the other tests leave behind never counts here
    cluster.steer('a');
    try (ClusterNodes.Stream listen = cluster.openModern(ALICE, "subscriptions/listen", null,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{"
            + "\"notifications\":{\"resourceSubscriptions\":[\"test://watched-resource\"]},"
            + ClusterNodes.MODERN_META + "}}")) {
      assertThat(listen.servedBy()).isEqualTo("a");
      JsonNode ack = listen.next(Duration.ofSeconds(10)).json();
      assertThat(ack.path("method").asString())
          .isEqualTo("notifications/subscriptions/acknowledged");
      assertThat(ack.at("/params/notifications/resourceSubscriptions/0").asString())
          .isEqualTo("test://watched-resource");
      cluster.steer('b');
      ClusterNodes.Answer touch = cluster.postModern(BOB, "tools/call", "touch_resource",
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
              + "\"touch_resource\",\"arguments\":{\"uri\":\"test://watched-resource\"},"
              + ClusterNodes.MODERN_META + "}}");
      assertThat(touch.servedBy()).isEqualTo("b");
      assertThat(touch.json().at("/result/content/0/text").asString()).as(touch.body())
          .isEqualTo("told 0 here");
      JsonNode updated = listen.next(Duration.ofSeconds(10)).json();
      assertThat(updated.path("method").asString()).isEqualTo("notifications/resources/updated");
      assertThat(updated.at("/params/uri").asString()).isEqualTo("test://watched-resource");
    }
  }
}
