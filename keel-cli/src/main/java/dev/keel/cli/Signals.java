package dev.keel.cli;

import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a clean stop with exit status 0. A plain shutdown hook would
 * also run, but the JVM would then exit with 143; a server stopped on purpose has not failed.
 * {@code sun.misc.Signal} lives in {@code jdk.unsupported}, which every JDK ships.
 */
final class Signals {

  private Signals() {}

  static void onTerminate(Runnable stop) {
    AtomicBoolean once = new AtomicBoolean();
    Runnable guarded = () -> {
      if (once.compareAndSet(false, true)) {
        stop.run();
      }
    };
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal.handle(new Signal(name), s -> guarded.run());
      } catch (IllegalArgumentException e) {
        // the platform has no such signal; the shutdown hook below still stops the server
      }
    }
    Runtime.getRuntime().addShutdownHook(new Thread(guarded, "keel-shutdown"));
  }
}
