package dev.keel.mcp.http.console;

import dev.keel.mcp.http.internal.OriginPolicy;
import dev.keel.mcp.server.McpServer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The console's HTTP side. Order of checks: Host and Origin (the MCP endpoint's policy), then
 * the operator's credential (bearer secret or login cookie), then, for a state-changing
 * request on a cookie, the CSRF token. Which operator acts comes only from the credential.
 */
final class ConsoleServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;
  private static final String COOKIE = "keel_console";
  private static final String CSRF_HEADER = "X-CSRF-Token";
  private static final int MAX_BODY = 64 * 1024;
  private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self';"
      + " img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none';"
      + " frame-ancestors 'none'";

  /** Who is calling and, for a browser, its login. */
  private record Caller(String operator, ConsoleSessions.Login login) {}

  private final transient McpServer server;
  private final transient OriginPolicy origins;
  private final String path;
  private final String base;
  private final transient OperatorKeys keys;
  private final transient ConsoleSessions sessions;
  private final transient ActionLog actions = new ActionLog();
  private final transient FailedLogins failedLogins = new FailedLogins();
  private final transient Snapshot snapshot;
  private final transient EventStreams events;
  private final transient TryIt tryIt;
  private final transient Assets assets = new Assets();

  ConsoleServlet(McpServer server, Console console, OriginPolicy origins) {
    this.server = server;
    this.origins = origins;
    this.path = console.path();
    this.base = path.substring(0, path.length() - 1);
    this.keys = new OperatorKeys(console.operators());
    this.sessions = new ConsoleSessions(console.sessionTtl());
    this.snapshot = new Snapshot(server, console.panels(), actions);
    this.events = new EventStreams(() -> snapshot.build().toString());
    this.tryIt = new TryIt(server.engine());
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    headers(resp);
    String uri = req.getRequestURI().substring(req.getContextPath().length());
    if (uri.equals(base)) {
      resp.setStatus(308);
      resp.setHeader("Location", req.getContextPath() + path);
      return;
    }
    if (!uri.startsWith(path)) {
      error(resp, 404, "not found");
      return;
    }
    if (!origins.admits(req.getHeader("Origin"), req.getHeader("Host"))) {
      error(resp, 403, "Forbidden: origin or host not allowed");
      return;
    }
    String rel = uri.substring(path.length());
    String method = req.getMethod();
    if (method.equals("GET") && (rel.equals("console.css") || rel.equals("console.js"))) {
      asset(resp, rel);
      return;
    }
    if (rel.equals("login")) {
      if (method.equals("POST")) {
        login(req, resp);
      } else {
        asset(resp, "login.html");
      }
      return;
    }
    if (req.getHeader("Authorization") != null && locked(req, resp)) {
      return;
    }
    Optional<Caller> caller = caller(req);
    if (caller.isEmpty()) {
      if (req.getHeader("Authorization") != null) {
        failedLogins.failed(req.getRemoteAddr());
      }
      if (rel.isEmpty() && method.equals("GET") && req.getHeader("Authorization") == null) {
        asset(resp, "login.html");
        return;
      }
      resp.setHeader("WWW-Authenticate", "Bearer realm=\"keel-console\"");
      error(resp, 401, "Unauthorized: an operator's credential is required");
      return;
    }
    if (method.equals("GET")) {
      get(rel, caller.get(), req, resp);
    } else if (method.equals("POST")) {
      post(rel, caller.get(), req, resp);
    } else {
      resp.setHeader("Allow", "GET, POST");
      error(resp, 405, "Method not allowed");
    }
  }

  private void get(String rel, Caller caller, HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    switch (rel) {
      case "" -> asset(resp, "index.html");
      case "api/me" -> json(resp, 200, object().put("operator", caller.operator())
          .put("csrf", caller.login() == null ? "" : caller.login().csrf()));
      case "api/snapshot" -> json(resp, 200, snapshot.build());
      case "api/actions" -> json(resp, 200, server.engine().codec().json().mapper()
          .valueToTree(actions.recent()));
      case "api/tools" -> async(req, resp, tryIt.readOnlyTools(caller.operator())
          .thenApply(tools -> object().set("tools", tools)));
      case "events" -> {
        AsyncContext async = req.startAsync();
        if (!events.open(async, resp)) {
          error(resp, 503, "too many open console feeds");
          async.complete();
        }
      }
      default -> error(resp, 404, "not found");
    }
  }

  private void post(String rel, Caller caller, HttpServletRequest req, HttpServletResponse resp)
      throws IOException {
    if (caller.login() != null && !csrfMatches(caller.login(), req.getHeader(CSRF_HEADER))) {
      // a cookie is sent by the browser whoever made the page: only the token proves it ours
      error(resp, 403, "Forbidden: missing or wrong CSRF token");
      return;
    }
    if (rel.equals("logout")) {
      sessions.close(caller.login() == null ? null : caller.login().id());
      resp.addHeader("Set-Cookie", cookie(req, "", 0));
      actions.record(caller.operator(), "logout", null, "ok");
      json(resp, 200, object().put("ok", true));
      return;
    }
    String type = req.getContentType();
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
      error(resp, 415, "Content-Type must be application/json");
      return;
    }
    JsonNode body;
    try {
      body = readJson(req);
    } catch (JacksonException | IllegalArgumentException e) {
      error(resp, 400, "the body must be a JSON object of at most " + MAX_BODY + " bytes");
      return;
    }
    switch (rel) {
      case "api/cancel-request" -> {
        String handle = body.path("handle").asString("");
        boolean done = server.operations().cancelRequest(handle, caller.operator());
        actions.record(caller.operator(), "cancel-request", handle,
            done ? "cancelled" : "not running");
        json(resp, done ? 200 : 404, object().put("cancelled", done));
      }
      case "api/cancel-task" -> {
        String taskId = body.path("taskId").asString("");
        boolean done = server.operations().cancelTask(taskId, caller.operator());
        actions.record(caller.operator(), "cancel-task", taskId,
            done ? "cancelled" : "not running");
        json(resp, done ? 200 : 404, object().put("cancelled", done));
      }
      case "api/try" -> tryTool(caller, body, req, resp);
      default -> error(resp, 404, "not found");
    }
  }

  private void tryTool(Caller caller, JsonNode body, HttpServletRequest req,
      HttpServletResponse resp) {
    String tool = body.path("tool").asString("");
    JsonNode args = body.get("arguments");
    ObjectNode arguments = args instanceof ObjectNode o ? o : object();
    async(req, resp, tryIt.call(caller.operator(), tool, arguments).handle((answer, failure) -> {
      String outcome = failure != null ? "refused" : answer instanceof
          dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse ? "error" : "ok";
      actions.record(caller.operator(), "try", tool, outcome);
      if (failure != null) {
        throw failure instanceof CompletionException c ? c : new CompletionException(failure);
      }
      ObjectNode shown = object();
      if (answer instanceof dev.keel.mcp.core.jsonrpc.JsonRpcResponse r) {
        shown.set("result", r.result());
      } else if (answer instanceof dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse e) {
        shown.putObject("error").put("code", e.error().code())
            .put("message", e.error().message()).set("data", e.error().data());
      }
      return shown;
    }));
  }

  /** Answers from a stage without holding the container thread while it runs. */
  private void async(HttpServletRequest req, HttpServletResponse resp,
      java.util.concurrent.CompletionStage<? extends JsonNode> stage) {
    AsyncContext async = req.startAsync();
    async.setTimeout(0);
    stage.whenComplete((value, failure) -> {
      try {
        HttpServletResponse r = (HttpServletResponse) async.getResponse();
        Throwable cause = failure instanceof CompletionException c && c.getCause() != null
            ? c.getCause() : failure;
        if (cause instanceof TryIt.Refused refused) {
          error(r, refused.refusal().status(), refused.refusal().message());
        } else if (cause != null) {
          log("console request failed", cause);
          error(r, 500, "Internal error");
        } else {
          json(r, 200, value);
        }
      } catch (IOException | RuntimeException e) {
        log("console answer failed", e);
      } finally {
        async.complete();
      }
    });
  }

  private void login(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (req.getContentLengthLong() > MAX_BODY) {
      error(resp, 413, "the login form is too large");
      return;
    }
    if (locked(req, resp)) {
      return;
    }
    Optional<String> operator = keys.operator(req.getParameter("secret"));
    if (operator.isEmpty()) {
      failedLogins.failed(req.getRemoteAddr());
      actions.record("(unknown)", "login", null, "refused");
      byte[] page = new String(assets.get("login.html").bytes(), StandardCharsets.UTF_8)
          .replace("<!--failed-->", "<p class=\"failed\" role=\"alert\">That secret opens"
              + " nothing here.</p>").getBytes(StandardCharsets.UTF_8);
      resp.setStatus(401);
      resp.setContentType("text/html;charset=utf-8");
      resp.setContentLength(page.length);
      resp.getOutputStream().write(page);
      return;
    }
    ConsoleSessions.Login login = sessions.open(operator.get());
    resp.addHeader("Set-Cookie", cookie(req, login.id(), sessions.ttlSeconds()));
    actions.record(operator.get(), "login", null, "ok");
    resp.setStatus(303);
    resp.setHeader("Location", req.getContextPath() + path);
  }

  /** Answers 429 while too many wrong secrets were tried lately. */
  private boolean locked(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String address = req.getRemoteAddr();
    if (!failedLogins.locked(address)) {
      return false;
    }
    resp.setHeader("Retry-After", String.valueOf(failedLogins.retryAfterSeconds(address)));
    error(resp, 429, "Too many wrong secrets: try again later");
    return true;
  }

  private Optional<Caller> caller(HttpServletRequest req) {
    String auth = req.getHeader("Authorization");
    if (auth != null) {
      // a credential that is not an operator's (an MCP client's key or token) opens nothing,
      // and is never passed over for a cookie
      return auth.regionMatches(true, 0, "Bearer ", 0, 7)
          ? keys.operator(auth.substring(7).trim()).map(name -> new Caller(name, null))
          : Optional.empty();
    }
    if (req.getCookies() == null) {
      return Optional.empty();
    }
    for (jakarta.servlet.http.Cookie c : req.getCookies()) {
      if (c.getName().equals(COOKIE)) {
        Optional<ConsoleSessions.Login> login = sessions.find(c.getValue());
        if (login.isPresent()) {
          return Optional.of(new Caller(login.get().operator(), login.get()));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean csrfMatches(ConsoleSessions.Login login, String presented) {
    return presented != null && MessageDigest.isEqual(
        login.csrf().getBytes(StandardCharsets.UTF_8),
        presented.getBytes(StandardCharsets.UTF_8));
  }

  private String cookie(HttpServletRequest req, String value, long maxAge) {
    return COOKIE + "=" + value + "; Path=" + req.getContextPath() + base
        + "; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict" + (req.isSecure() ? "; Secure"
        : "");
  }

  private JsonNode readJson(HttpServletRequest req) throws IOException {
    byte[] bytes = req.getInputStream().readNBytes(MAX_BODY + 1);
    if (bytes.length > MAX_BODY) {
      throw new IllegalArgumentException("body too large");
    }
    // the peer reader: an operator's body gets the same depth and size limits as a client's
    JsonNode node = server.engine().codec().json().readPeerTree(bytes);
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("not an object");
    }
    return node;
  }

  private static void headers(HttpServletResponse resp) {
    resp.setHeader("Content-Security-Policy", CSP);
    resp.setHeader("X-Frame-Options", "DENY");
    resp.setHeader("X-Content-Type-Options", "nosniff");
    // not no-referrer: under it a browser sends "Origin: null" with the login form's POST,
    // which the origin check rightly refuses
    resp.setHeader("Referrer-Policy", "same-origin");
    resp.setHeader("Cache-Control", "no-store");
    resp.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    resp.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  }

  private void asset(HttpServletResponse resp, String name) throws IOException {
    Assets.Asset a = assets.get(name);
    resp.setStatus(200);
    resp.setContentType(a.type());
    resp.setContentLength(a.bytes().length);
    resp.getOutputStream().write(a.bytes());
  }

  private ObjectNode object() {
    return dev.keel.mcp.core.McpJson.object();
  }

  private void json(HttpServletResponse resp, int status, JsonNode body) throws IOException {
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    resp.setStatus(status);
    resp.setContentType("application/json");
    resp.setContentLength(bytes.length);
    resp.getOutputStream().write(bytes);
  }

  private void error(HttpServletResponse resp, int status, String message) throws IOException {
    json(resp, status, object().put("error", message));
  }

  @Override
  public void destroy() {
    events.close();
  }

  /** Returns how many live feeds are open (for tests). */
  int openFeeds() {
    return events.size();
  }
}
