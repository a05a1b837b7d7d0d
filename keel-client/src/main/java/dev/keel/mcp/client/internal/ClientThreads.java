package dev.keel.mcp.client.internal;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for reading responses and running the host's handlers: virtual where the JVM has them
 * (found by reflection: Keel is compiled for Java 17), daemon platform threads otherwise.
 */
public final class ClientThreads {

  private ClientThreads() {}

  /**
   * Returns a timer with one daemon thread, started on first use, that forgets a cancelled task
   * at once: its tasks are short bounds that are nearly always cancelled, one per call.
   */
  public static ScheduledThreadPoolExecutor newTimer(String name) {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** Returns a new executor starting one thread per task. */
  public static ExecutorService newExecutor(String name) {
    try {
      Method factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
      return (ExecutorService) factory.invoke(null);
    } catch (ReflectiveOperationException e) {
      AtomicInteger count = new AtomicInteger();
      return Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, name + "-" + count.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
    }
  }
}
