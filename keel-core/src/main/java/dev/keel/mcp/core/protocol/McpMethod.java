package dev.keel.mcp.core.protocol;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every method of the protocol, in one table: who sends it, which eras have it, whether a
 * client may send it again after a lost session, which parameter names its target (mirrored
 * into {@code Mcp-Name} in the stateless era), whether its handler is user code (and so runs
 * under a timeout), and whether a stateless request of it may take input rounds (MRTR).
 */
public enum McpMethod {
  // client to server
  /** {@code initialize}: opens a legacy session and agrees on its version. */
  INITIALIZE("initialize", Sender.CLIENT, true, false, false, null, false, false),
  /** {@code ping}: checks that the peer answers; either side may send it. */
  PING("ping", Sender.BOTH, true, false, true, null, false, false),
  /** {@code server/discover}: asks a stateless server what it is and offers (2026-07-28). */
  SERVER_DISCOVER("server/discover", Sender.CLIENT, false, true, true, null, false, false),
  /** {@code logging/setLevel}: sets the level of the log notifications a session receives. */
  LOGGING_SET_LEVEL("logging/setLevel", Sender.CLIENT, true, false, true, null, false, false),
  /** {@code completion/complete}: asks for completions of a prompt argument or a template variable. */
  COMPLETION_COMPLETE("completion/complete", Sender.CLIENT, true, true, true, null, true, false),
  /** {@code tools/list}: lists the tools. */
  TOOLS_LIST("tools/list", Sender.CLIENT, true, true, true, null, false, false),
  /** {@code tools/call}: calls a tool. */
  TOOLS_CALL("tools/call", Sender.CLIENT, true, true, false, "name", true, true),
  /** {@code resources/list}: lists the fixed resources. */
  RESOURCES_LIST("resources/list", Sender.CLIENT, true, true, true, null, false, false),
  /** {@code resources/templates/list}: lists the resource templates. */
  RESOURCES_TEMPLATES_LIST("resources/templates/list", Sender.CLIENT, true, true, true, null,
      false, false),
  /** {@code resources/read}: reads a resource. */
  RESOURCES_READ("resources/read", Sender.CLIENT, true, true, true, "uri", true, true),
  /** {@code resources/subscribe}: subscribes a session to a resource's updates. */
  RESOURCES_SUBSCRIBE("resources/subscribe", Sender.CLIENT, true, false, true, null, false,
      false),
  /** {@code resources/unsubscribe}: ends a subscription to a resource's updates. */
  RESOURCES_UNSUBSCRIBE("resources/unsubscribe", Sender.CLIENT, true, false, true, null, false,
      false),
  /** {@code prompts/list}: lists the prompts. */
  PROMPTS_LIST("prompts/list", Sender.CLIENT, true, true, true, null, false, false),
  /** {@code prompts/get}: renders a prompt with arguments. */
  PROMPTS_GET("prompts/get", Sender.CLIENT, true, true, true, "name", true, true),
  /** {@code subscriptions/listen}: opens a stream of list and resource changes (2026-07-28). */
  SUBSCRIPTIONS_LISTEN("subscriptions/listen", Sender.CLIENT, false, true, false, null, false,
      false),
  /** {@code tasks/get}: reads a task's status. */
  TASKS_GET("tasks/get", Sender.CLIENT, true, true, true, "taskId", false, false),
  /** {@code tasks/result}: waits for and returns a task's result. */
  TASKS_RESULT("tasks/result", Sender.CLIENT, true, false, true, null, false, false),
  /** {@code tasks/list}: lists the caller's tasks. */
  TASKS_LIST("tasks/list", Sender.CLIENT, true, false, true, null, false, false),
  /** {@code tasks/cancel}: cancels a task. */
  TASKS_CANCEL("tasks/cancel", Sender.CLIENT, true, true, false, "taskId", false, false),
  /** {@code tasks/update}: answers a task's input request (2026-07-28). */
  TASKS_UPDATE("tasks/update", Sender.CLIENT, false, true, false, "taskId", false, false),
  // server to client (legacy sessions only)
  /** {@code sampling/createMessage}: asks the client's model for a message. */
  SAMPLING_CREATE_MESSAGE("sampling/createMessage", Sender.SERVER, true, false, false, null,
      false, false),
  /** {@code elicitation/create}: asks the client's user for input. */
  ELICITATION_CREATE("elicitation/create", Sender.SERVER, true, false, false, null, false,
      false),
  /** {@code roots/list}: asks the client for its roots. */
  ROOTS_LIST("roots/list", Sender.SERVER, true, false, true, null, false, false);

  /** Who sends a method's requests. */
  public enum Sender {
    /** The client. */
    CLIENT,
    /** The server, in a legacy session. */
    SERVER,
    /** Either side. */
    BOTH
  }

  private static final Map<String, McpMethod> BY_NAME = new HashMap<>();

  static {
    for (McpMethod m : values()) {
      BY_NAME.put(m.wireName, m);
    }
  }

  private final String wireName;
  private final Sender sender;
  private final boolean legacy;
  private final boolean modern;
  private final boolean idempotent;
  private final String targetParam;
  private final boolean userCode;
  private final boolean inputRounds;

  McpMethod(String wireName, Sender sender, boolean legacy, boolean modern, boolean idempotent,
      String targetParam, boolean userCode, boolean inputRounds) {
    this.wireName = wireName;
    this.sender = sender;
    this.legacy = legacy;
    this.modern = modern;
    this.idempotent = idempotent;
    this.targetParam = targetParam;
    this.userCode = userCode;
    this.inputRounds = inputRounds;
  }

  /** Returns the method named {@code name} on the wire, if the protocol has one. */
  public static Optional<McpMethod> of(String name) {
    return Optional.ofNullable(name == null ? null : BY_NAME.get(name));
  }

  /** Returns the name on the wire, such as {@code tools/call}. */
  public String wireName() {
    return wireName;
  }

  /** Returns who sends it. */
  public Sender sender() {
    return sender;
  }

  /** Returns true when legacy sessions have it. */
  public boolean legacy() {
    return legacy;
  }

  /** Returns true when the stateless era has it. */
  public boolean modern() {
    return modern;
  }

  /** Returns true when {@code era} has it. */
  public boolean in(Era era) {
    return era == Era.MODERN ? modern : legacy;
  }

  /**
   * Returns true when sending it twice does no harm, so a client may send it again after its
   * session was lost; {@code tools/call} and {@code tasks/update} never are.
   */
  public boolean idempotent() {
    return idempotent;
  }

  /**
   * Returns the parameter that names the method's target ({@code name}, {@code uri},
   * {@code taskId}), mirrored into {@code Mcp-Name} in the stateless era, or null.
   */
  public String targetParam() {
    return targetParam;
  }

  /** Returns true when its handler is the server author's code, which runs under a timeout. */
  public boolean userCode() {
    return userCode;
  }

  /** Returns true when a stateless request of it may be answered {@code input_required}. */
  public boolean inputRounds() {
    return inputRounds;
  }
}
