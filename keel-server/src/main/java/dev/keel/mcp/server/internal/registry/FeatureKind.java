package dev.keel.mcp.server.internal.registry;

/** The lists whose changes clients are told about. */
public enum FeatureKind {
  /** {@code notifications/tools/list_changed}. */
  TOOLS("notifications/tools/list_changed"),
  /** {@code notifications/resources/list_changed}. */
  RESOURCES("notifications/resources/list_changed"),
  /** {@code notifications/prompts/list_changed}. */
  PROMPTS("notifications/prompts/list_changed");

  private final String notification;

  FeatureKind(String notification) {
    this.notification = notification;
  }

  /** Returns the method of the list-changed notification. */
  public String notification() {
    return notification;
  }
}
