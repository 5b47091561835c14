package dev.larder.bench.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures memory as the per-entry overhead study does: call the garbage collector until the heap
 * in use changes by less than a threshold between two consecutive collections, then read it. Also
 * reads the resident set and, when enabled, native memory tracking.
 *
 * <p>Before reading the resident set it asks the JVM to return freed {@code malloc} memory to the
 * system ({@code System.trim_native_heap}); otherwise memory a warm-up freed stays resident, is
 * reused by the load, and hides the load's real cost.
 *
 * <p>Implementation notes: G1 must run with {@code -XX:MarkSweepDeadRatio=0}, or full collections
 * leave dead objects in dense regions and inflate the heap in use by about 0.6%. The round limit
 * keeps background activity (such as string deduplication) from looping forever; a snapshot says
 * whether it settled.
 */
public final class MemoryProbe {

  /** Heap change between two collections below which the heap counts as settled. */
  public static final long STABLE_BYTES = 100 * 1024;

  private final int maxRounds;
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

  /**
   * @param maxRounds the most {@code System.gc()} calls per snapshot; at least 2
   */
  public MemoryProbe(int maxRounds) {
    if (maxRounds < 2) {
      throw new IllegalArgumentException("maxRounds must be at least 2: " + maxRounds);
    }
    this.maxRounds = maxRounds;
  }

  /** Returns a snapshot after the heap settled (or the round limit was reached). */
  @SuppressWarnings("PMD.DoNotCallGarbageCollectionExplicitly")
  public MemorySnapshot settle() {
    long previous = Long.MAX_VALUE;
    for (int round = 1; round <= maxRounds; round++) {
      System.gc();
      long used = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(used - previous) < STABLE_BYTES) {
        return snapshot(used, true, round);
      }
      previous = used;
      pause();
    }
    return snapshot(previous, false, maxRounds);
  }

  private static MemorySnapshot snapshot(long heapUsed, boolean stable, int rounds) {
    NativeMemoryTracking.trimNativeHeap();
    return new MemorySnapshot(
        heapUsed,
        ProcStatus.residentBytes().orElse(-1),
        NativeMemoryTracking.committedBytes().orElse(-1),
        stable,
        rounds);
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sleeps, so that HotSpot releases the memory the JIT used during warm-up before the baseline is
   * taken (it does so about five seconds after compilation calms down).
   *
   * @param millis how long
   */
  public static void quietPeriod(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
