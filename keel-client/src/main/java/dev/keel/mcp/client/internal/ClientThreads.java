package dev.keel.mcp.client.internal;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for reading responses and running the host's handlers: virtual where the JVM has them
 * (found by reflection: Keel is compiled for Java 17), daemon platform threads otherwise.
 */
public final class ClientThreads {

  private ClientThreads() {}

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
