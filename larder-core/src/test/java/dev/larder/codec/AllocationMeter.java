package dev.larder.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bytes allocated by the current thread, read from {@code com.sun.management.ThreadMXBean}. Reached
 * through method handles because the tests are compiled into the core module, which does not read
 * {@code jdk.management}; they run on the class path, where it is visible.
 */
final class AllocationMeter {

  private static final MethodHandle ALLOCATED = find();

  private AllocationMeter() {}

  private static MethodHandle find() {
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
      Class<?> bean = Class.forName("com.sun.management.ThreadMXBean");
      Object threads =
          lookup
              .findStatic(
                  factory,
                  "getThreadMXBean",
                  MethodType.methodType(Class.forName("java.lang.management.ThreadMXBean")))
              .invoke();
      return lookup
          .findVirtual(bean, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
          .bindTo(threads);
    } catch (Throwable t) {
      throw new IllegalStateException("thread allocation counter unavailable", t);
    }
  }

  static long allocatedBytes() {
    try {
      return (long) ALLOCATED.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
