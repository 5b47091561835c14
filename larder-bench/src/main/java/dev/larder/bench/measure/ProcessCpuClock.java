package dev.larder.bench.measure;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The CPU time of the whole process so far (every thread: workers, GC, compilers), in nanoseconds,
 * at the resolution of the kernel's clock.
 *
 * <p>Why not {@code OperatingSystemMXBean.getProcessCpuTime()}: on Linux the JDK reads it from
 * {@code times(2)}, in clock ticks of 10 ms, so a slice of the interleaved throughput run (100-300
 * ms of wall time, less CPU on a shared machine) is off by up to a tick at each end, and a 20 ms
 * slice can read 0 ns. Here {@code clock_gettime(CLOCK_PROCESS_CPUTIME_ID)} is called through the
 * FFM API (Linux on a 64-bit machine: a {@code timespec} of two longs); elsewhere, or if the call
 * fails, the MXBean's figure is used.
 *
 * <p>Thread-safe and stateless apart from the handle looked up once.
 */
public final class ProcessCpuClock {

  /** Linux's clock id for the CPU time of every thread of the calling process. */
  private static final int CLOCK_PROCESS_CPUTIME_ID = 2;

  /** {@code clock_gettime(int, struct timespec *)}, or null where not used. */
  private static final MethodHandle CLOCK_GETTIME = lookUp();

  private ProcessCpuClock() {}

  /**
   * Returns the process's CPU time so far, in nanoseconds.
   *
   * @throws IllegalStateException if this JVM can report it neither way
   */
  public static long nanos() {
    if (CLOCK_GETTIME != null) {
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment timespec = arena.allocate(16, 8);
        int result = (int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, timespec);
        if (result == 0) {
          return timespec.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L
              + timespec.get(ValueLayout.JAVA_LONG, 8);
        }
      } catch (Throwable e) {
        // fall through to the MXBean: a coarser figure is better than none
      }
    }
    return mxBeanNanos();
  }

  /** Returns whether {@link #nanos} reads the kernel's clock (false: the 10 ms MXBean figure). */
  public static boolean precise() {
    return CLOCK_GETTIME != null;
  }

  private static long mxBeanNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      long nanos = os.getProcessCpuTime();
      if (nanos >= 0) {
        return nanos;
      }
    }
    throw new IllegalStateException("this JVM does not report the process's CPU time");
  }

  @SuppressWarnings("restricted") // refused where native access is denied: caught in lookUp
  private static MethodHandle downcall(MemorySegment address) {
    return Linker.nativeLinker()
        .downcallHandle(
            address,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
  }

  private static MethodHandle lookUp() {
    boolean linux = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    if (!linux || ValueLayout.ADDRESS.byteSize() != 8) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("clock_gettime")
          .map(ProcessCpuClock::downcall)
          .orElse(null);
    } catch (RuntimeException e) {
      return null; // native access refused: the MXBean's figure will do
    }
  }
}
