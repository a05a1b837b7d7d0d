package dev.keel.mcp.server.transport;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads handlers run on: one virtual thread per task where the JVM has them (21+), else a
 * bounded pool of daemon platform threads.
 *
 * <p>Keel is compiled for Java 17, so the virtual-thread factory is found by reflection at
 * runtime rather than linked.
 */
public final class HandlerThreads {

  /** The most platform threads the Java 17 fallback pool starts. */
  public static final int PLATFORM_POOL_SIZE = 256;

  private HandlerThreads() {}

  /** Returns true when this JVM has virtual threads. */
  public static boolean virtual() {
    return virtualFactory() != null;
  }

  /**
   * Returns a new executor for handlers: virtual threads when available, otherwise a pool of at
   * most {@link #PLATFORM_POOL_SIZE} threads with an unbounded queue (admission is limited
   * upstream by the session and request caps).
   */
  public static ExecutorService newExecutor(String name) {
    Method factory = virtualFactory();
    if (factory != null) {
      try {
        return (ExecutorService) factory.invoke(null);
      } catch (ReflectiveOperationException e) {
        // fall through to the platform pool
      }
    }
    AtomicInteger count = new AtomicInteger();
    ThreadFactory threads = r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    ThreadPoolExecutor pool = new ThreadPoolExecutor(PLATFORM_POOL_SIZE, PLATFORM_POOL_SIZE,
        30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private static Method virtualFactory() {
    try {
      return java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
    } catch (NoSuchMethodException e) {
      return null;
    }
  }
}
