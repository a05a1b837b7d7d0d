package dev.keel.mcp.client;

import tools.jackson.databind.node.ObjectNode;

/**
 * Receives the server's notifications that no call is waiting for: list changes, resource
 * updates, log messages outside a call. It runs on the thread that reads the server and must be
 * quick; an exception it throws is logged and dropped.
 */
@FunctionalInterface
public interface NotificationListener {

  /** Called with the notification's method and params (params may be null). */
  void onNotification(String method, ObjectNode params);
}
