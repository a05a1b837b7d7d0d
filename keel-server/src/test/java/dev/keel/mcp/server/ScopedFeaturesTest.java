package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Resources, resource templates and prompts with required scopes: a scope-based principal
 * without them does not see them listed and cannot read, subscribe to or get them (the handler
 * never runs); one with the scopes, or a principal that is not scope-based, can.
 */
class ScopedFeaturesTest {

  private final AtomicInteger ran = new AtomicInteger();
  private final McpServer server = McpServer.builder().name("scoped").version("1")
      .resource(Resource.of("test://open", "open", null, "text/plain"),
          (ctx, uri) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "o")))
      .resource(Resource.of("test://secret", "secret", null, "text/plain"), (ctx, uri) -> {
        ran.incrementAndGet();
        return ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "s"));
      }, "mcp:admin")
      .resourceTemplate(ResourceTemplate.of("test://vault/{id}", "vault", null, "text/plain"),
          (ctx, uri, vars) -> {
            ran.incrementAndGet();
            return ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "v"));
          }, "mcp:admin")
      .prompt(Prompt.of("hello", "For anyone"),
          (ctx, args) -> GetPromptResult.of(PromptMessage.user("hi")))
      .prompt(Prompt.of("audit", "Needs mcp:admin"), (ctx, args) -> {
        ran.incrementAndGet();
        return GetPromptResult.of(PromptMessage.user("audit"));
      }, "mcp:admin")
      .build();
  private final EngineFixture fixture = new EngineFixture(server);

  @AfterEach
  void close() {
    fixture.close();
  }

  private Optional<JsonRpcMessage> handle(Principal who, ServerSession session, int id,
      String method, ObjectNode params) {
    return server.engine().handle(session, who, new JsonRpcRequest(RequestId.of(id), method,
        params), CollectingStream.open());
  }

  private static ObjectNode uri(String uri) {
    return McpJson.object().put("uri", uri);
  }

  private static void refusedNaming(Optional<JsonRpcMessage> answer, String scope) {
    assertThat(answer).get().isInstanceOf(JsonRpcErrorResponse.class);
    JsonRpcErrorResponse error = (JsonRpcErrorResponse) answer.get();
    assertThat(error.error().code()).isEqualTo(ErrorCodes.UNAUTHORIZED);
    assertThat(error.error().message()).contains(scope);
  }

  @Test
  void withoutTheScopeTheyAreNeitherListedNorServed() {
    Principal user = new Principal("u", "oauth:u", Map.of(), Set.of("mcp:tools"));
    ServerSession session = fixture.initialize(user, EngineFixture.NOTHING);

    assertThat(EngineFixture.resultOf(handle(user, session, 1, "resources/list", null))
        .toString()).contains("test://open").doesNotContain("test://secret");
    assertThat(EngineFixture.resultOf(handle(user, session, 2, "resources/templates/list",
        null)).toString()).doesNotContain("vault");
    assertThat(EngineFixture.resultOf(handle(user, session, 3, "prompts/list", null))
        .toString()).contains("hello").doesNotContain("audit");

    refusedNaming(handle(user, session, 4, "resources/read", uri("test://secret")),
        "mcp:admin");
    refusedNaming(handle(user, session, 5, "resources/read", uri("test://vault/7")),
        "mcp:admin");
    refusedNaming(handle(user, session, 6, "resources/subscribe", uri("test://secret")),
        "mcp:admin");
    refusedNaming(handle(user, session, 7, "prompts/get",
        McpJson.object().put("name", "audit")), "mcp:admin");
    assertThat(ran).as("no handler ran").hasValue(0);
    assertThat(EngineFixture.resultOf(handle(user, session, 8, "resources/read",
        uri("test://open"))).toString()).contains("\"o\"");
  }

  @Test
  void withTheScopeOrWithoutScopesAtAllTheyAreServed() {
    for (Principal who : new Principal[] {
        new Principal("a", "oauth:a", Map.of(), Set.of("mcp:admin")),
        new Principal("ci", "apikey:ci")}) {
      ServerSession session = fixture.initialize(who, EngineFixture.NOTHING);
      assertThat(EngineFixture.resultOf(handle(who, session, 1, "resources/list", null))
          .toString()).contains("test://secret");
      assertThat(EngineFixture.resultOf(handle(who, session, 2, "prompts/list", null))
          .toString()).contains("audit");
      assertThat(EngineFixture.resultOf(handle(who, session, 3, "resources/read",
          uri("test://vault/7"))).toString()).contains("\"v\"");
      assertThat(EngineFixture.resultOf(handle(who, session, 4, "prompts/get",
          McpJson.object().put("name", "audit"))).toString()).contains("audit");
    }
    assertThat(ran).hasValue(4);
  }
}
