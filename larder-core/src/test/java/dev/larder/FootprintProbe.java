package dev.larder;

import dev.larder.codec.Codecs;
import dev.larder.internal.LarderCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Measures what a Larder cache costs the process, the way the many-small-caches experiment measures
 * them: heap used after GC until stable, plus the anonymous resident set beyond a pre-touched heap,
 * before and after the load. Run in a fresh JVM with {@code -Xms = -Xmx}, {@code
 * -XX:+AlwaysPreTouch} and {@code -XX:MarkSweepDeadRatio=0} (see MEASURING.md); prints one {@code
 * key=value} line.
 *
 * <p>Usage: {@code FootprintProbe <OFF_HEAP|HEAP> overhead <valueBytes> <payloadMiB>} or {@code
 * FootprintProbe <OFF_HEAP|HEAP> churn <boundMiB> <puts>}.
 */
public final class FootprintProbe {

  private FootprintProbe() {}

  public static void main(String[] args) throws Exception {
    Storage storage = Storage.valueOf(args[0]);
    switch (args[1]) {
      case "overhead" -> overhead(storage, Integer.parseInt(args[2]), Long.parseLong(args[3]));
      case "churn" -> churn(storage, Long.parseLong(args[2]), Long.parseLong(args[3]));
      default -> throw new IllegalArgumentException("unknown probe " + args[1]);
    }
  }

  /** Loads 10-char String keys with byte[] values until the payload reaches payloadMiB. */
  private static void overhead(Storage storage, int valueBytes, long payloadMiB) throws Exception {
    long entries = Math.ceilDiv(payloadMiB << 20, 10 + valueBytes);
    long bound = (payloadMiB << 20) * 2 + (64L << 20);
    warmUp(storage);
    // A full-size fill on the heap first: the JIT's code and the collector's native structures
    // reach the size this fill gives them before the baseline, instead of adding a few hundred
    // KB of resident memory (1-1.5 B/entry) to the measured cache at random.
    fill(Storage.HEAP, bound, entries, valueBytes).close();
    long[] before = measure();
    Cache<String, byte[]> cache = fill(storage, bound, entries, valueBytes);
    long[] after = measure();
    long heap = after[0] - before[0];
    long nativeBytes = after[1] - before[1];
    long gained = heap + nativeBytes;
    System.out.printf(
        "entries=%d heapBytes=%d nativeBytes=%d gainedBytes=%d memoryUsed=%d"
            + " overheadMeasured=%.2f overheadAccounted=%.2f accountingError=%.4f%n",
        cache.estimatedSize(),
        heap,
        nativeBytes,
        gained,
        cache.memoryUsed(),
        (double) gained / entries - 10 - valueBytes,
        (double) cache.memoryUsed() / entries - 10 - valueBytes,
        (double) (cache.memoryUsed() - gained) / gained);
    cache.close();
  }

  private static Cache<String, byte[]> fill(
      Storage storage, long bound, long entries, int valueBytes) {
    Cache<String, byte[]> cache =
        Cache.builder(Codecs.strings(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .build();
    byte[] value = new byte[valueBytes];
    Random random = new Random(42);
    for (long i = 0; i < entries; i++) {
      random.nextBytes(value);
      cache.put(key(i), value);
    }
    return cache;
  }

  /** Random puts of 100 B - 2 KiB values over a key space larger than the bound holds. */
  private static void churn(Storage storage, long boundMiB, long puts) {
    long bound = boundMiB << 20;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .build()) {
      long keySpace = bound / 1000 * 3;
      Random random = new Random(7);
      long maxUsed = 0;
      for (long i = 0; i < puts; i++) {
        cache.put((long) random.nextInt((int) keySpace), new byte[100 + random.nextInt(1949)]);
        if ((i & 1023) == 0) {
          maxUsed = Math.max(maxUsed, cache.memoryUsed());
        }
      }
      long live = ((LarderCache<?, ?>) cache).liveBytes();
      System.out.printf(
          "entries=%d liveBytes=%d memoryUsed=%d maxMemoryUsed=%d bound=%d" + " utilisation=%.4f%n",
          cache.estimatedSize(),
          live,
          cache.memoryUsed(),
          Math.max(maxUsed, cache.memoryUsed()),
          bound,
          (double) live / cache.memoryUsed());
    }
  }

  static String key(long i) {
    return String.format("k%09d", i);
  }

  /** Exercises the code paths first, so that JIT memory is spent before the baseline. */
  private static void warmUp(Storage storage) throws InterruptedException {
    // Warm up on the heap: off-heap memory freed by a warm-up cache would stay resident in
    // malloc's free lists and be reused by the measured cache, hiding part of its cost.
    warmUp(Storage.HEAP, 8L << 20);
    warmUp(storage, 256L << 10);
    Thread.sleep(6000);
  }

  private static void warmUp(Storage storage, long bound) {
    try (Cache<String, byte[]> cache =
        Cache.builder(Codecs.strings(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .build()) {
      byte[] value = new byte[512];
      for (int round = 0; round < 20; round++) {
        for (long i = 0; i < 20_000; i++) {
          cache.put(key(i), value);
          cache.getIfPresent(key(i));
        }
      }
    }
  }

  /** Returns {heap used after GC until stable, anonymous resident set, heap included}. */
  private static long[] measure() throws InterruptedException, IOException {
    Runtime runtime = Runtime.getRuntime();
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int i = 0; i < 20; i++) {
      System.gc();
      Thread.sleep(50);
      used = runtime.totalMemory() - runtime.freeMemory();
      if (Math.abs(previous - used) < 64 * 1024) {
        break;
      }
      previous = used;
    }
    return new long[] {used, residentSetBytes()};
  }

  /**
   * Anonymous and shared-memory resident bytes (RssAnon + RssShmem), not VmRSS: VmRSS also counts
   * file-backed pages (libjvm, the CDS archive, jars), which the kernel may drop under memory
   * pressure from other processes on a shared machine. One CI run lost 11.8 MB of them between the
   * baseline and the end of the fill and read the cache's accounting as 12% high. The heap and
   * everything the cache allocates, on or off the heap, is anonymous memory.
   */
  private static long residentSetBytes() throws IOException {
    long anon = -1;
    long shmem = -1;
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("RssAnon:")) {
        anon = kilobytes(line);
      } else if (line.startsWith("RssShmem:")) {
        shmem = kilobytes(line);
      }
    }
    if (anon < 0 || shmem < 0) {
      throw new IOException("no RssAnon or RssShmem in /proc/self/status");
    }
    return anon + shmem;
  }

  private static long kilobytes(String statusLine) {
    return Long.parseLong(statusLine.replaceAll("[^0-9]", "")) * 1024;
  }
}
