package dev.keel.mcp.http.console;

import dev.keel.mcp.core.Text;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What operators did through the console, newest last: logged, and the last {@link #MAX}
 * kept for the page, so every operator sees who cancelled what.
 */
final class ActionLog {

  private static final Logger LOG = LoggerFactory.getLogger(Console.class);

  /** The most actions kept. */
  static final int MAX = 100;

  /**
   * One action.
   *
   * @param at when
   * @param operator who, as the credential named them
   * @param action what (login, logout, cancel-request, cancel-task, try)
   * @param target what it named
   * @param outcome how it ended
   */
  record Action(String at, String operator, String action, String target, String outcome) {}

  private final Deque<Action> actions = new ArrayDeque<>();

  void record(String operator, String action, String target, String outcome) {
    Action a = new Action(Instant.now().toString(), operator, action,
        target == null ? "" : Text.safe(target), outcome);
    LOG.info("console: operator {} {} {}: {}", a.operator(), a.action(), a.target(),
        a.outcome());
    synchronized (actions) {
      actions.addLast(a);
      if (actions.size() > MAX) {
        actions.removeFirst();
      }
    }
  }

  List<Action> recent() {
    synchronized (actions) {
      return List.copyOf(actions);
    }
  }
}
