package example;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.OAuthResourceServer;
import dev.keel.mcp.server.McpServer;
import java.net.URI;

/**
 * A server that answers only requests carrying an access token of its authorization server:
 * signed by the issuer's keys, for this server (its audience), unexpired, with the scope
 * {@code mcp:tools}. A request without one gets 401 and a pointer to the protected-resource
 * metadata (RFC 9728), from which an MCP client finds where to get a token. Tools see who
 * called as {@code ctx.principal()}, and a session belongs to the token's subject.
 */
public final class OAuthDemo {

  public static McpServer server() {
    return McpServer.builder().name("whoami").version("1.0.0")
        .tool(Tool.builder("whoami").description("Says who the token belongs to").build(),
            (ctx, args) -> CallToolResult.text(ctx.principal().id()))
        .build();
  }

  /** Serves on {@code port}, trusting tokens of {@code issuer} made for this server. */
  public static McpHttpServer start(URI issuer, int port) {
    URI resource = URI.create("http://127.0.0.1:" + port + "/mcp");   // this server, as tokens name it
    OAuthResourceServer oauth = OAuthResourceServer.builder(issuer, resource)
        .requiredScopes("mcp:tools")
        .build();
    return McpHttpServer.builder(server()).host("127.0.0.1").port(port)
        .servlet(s -> s.oauth(oauth)).start();
  }

  public static void main(String[] args) throws Exception {
    // e.g. https://auth.example.com/realms/mcp (Keycloak), as the tokens' iss names it
    try (McpHttpServer http = start(URI.create(args[0]), 8080)) {
      System.out.println("listening on " + http.endpoint());
      http.join();
    }
  }
}
