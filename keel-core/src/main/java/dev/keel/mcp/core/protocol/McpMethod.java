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
  INITIALIZE("initialize", Sender.CLIENT, true, false, false, null, false, false),
  PING("ping", Sender.BOTH, true, false, true, null, false, false),
  SERVER_DISCOVER("server/discover", Sender.CLIENT, false, true, true, null, false, false),
  LOGGING_SET_LEVEL("logging/setLevel", Sender.CLIENT, true, false, true, null, false, false),
  COMPLETION_COMPLETE("completion/complete", Sender.CLIENT, true, true, true, null, true, false),
  TOOLS_LIST("tools/list", Sender.CLIENT, true, true, true, null, false, false),
  TOOLS_CALL("tools/call", Sender.CLIENT, true, true, false, "name", true, true),
  RESOURCES_LIST("resources/list", Sender.CLIENT, true, true, true, null, false, false),
  RESOURCES_TEMPLATES_LIST("resources/templates/list", Sender.CLIENT, true, true, true, null,
      false, false),
  RESOURCES_READ("resources/read", Sender.CLIENT, true, true, true, "uri", true, true),
  RESOURCES_SUBSCRIBE("resources/subscribe", Sender.CLIENT, true, false, true, null, false,
      false),
  RESOURCES_UNSUBSCRIBE("resources/unsubscribe", Sender.CLIENT, true, false, true, null, false,
      false),
  PROMPTS_LIST("prompts/list", Sender.CLIENT, true, true, true, null, false, false),
  PROMPTS_GET("prompts/get", Sender.CLIENT, true, true, true, "name", true, true),
  SUBSCRIPTIONS_LISTEN("subscriptions/listen", Sender.CLIENT, false, true, false, null, false,
      false),
  TASKS_GET("tasks/get", Sender.CLIENT, true, true, true, "taskId", false, false),
  TASKS_RESULT("tasks/result", Sender.CLIENT, true, false, true, null, false, false),
  TASKS_LIST("tasks/list", Sender.CLIENT, true, false, true, null, false, false),
  TASKS_CANCEL("tasks/cancel", Sender.CLIENT, true, true, false, "taskId", false, false),
  TASKS_UPDATE("tasks/update", Sender.CLIENT, false, true, false, "taskId", false, false),
  // server to client (legacy sessions only)
  SAMPLING_CREATE_MESSAGE("sampling/createMessage", Sender.SERVER, true, false, false, null,
      false, false),
  ELICITATION_CREATE("elicitation/create", Sender.SERVER, true, false, false, null, false,
      false),
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
