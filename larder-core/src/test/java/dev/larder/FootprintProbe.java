package dev.larder;

import dev.larder.codec.Codecs;
import dev.larder.internal.LarderCache;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Measures what a Larder cache costs the process, the way the many-small-caches experiment measures
 * them: heap used after GC until stable, plus the resident pages of the memory mappings that the
 * load made or extended beyond a pre-touched heap, before and after the load. Run in a fresh JVM
 * with {@code -Xms = -Xmx}, {@code -XX:+AlwaysPreTouch} and {@code -XX:MarkSweepDeadRatio=0} (see
 * MEASURING.md); prints one {@code key=value} line.
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
    long heapBefore = heapUsed();
    Map<Long, Mapping> mappingsBefore = mappings();
    Cache<String, byte[]> cache = fill(storage, bound, entries, valueBytes);
    long heap = heapUsed() - heapBefore;
    long nativeBytes = residentGrowth(mappingsBefore, mappings());
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

  /**
   * Returns the heap used after GC until stable. The C heap is trimmed first, so that memory the
   * JVM's own threads malloc'd and freed (the compiler's arenas, the collector's work lists) does
   * not stay resident at random in glibc's free lists and in the mappings {@link #residentGrowth}
   * compares.
   */
  private static long heapUsed() throws InterruptedException, IOException {
    trimNativeHeap();
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
    trimNativeHeap();
    return used;
  }

  /** Has glibc give its free C-heap memory back to the system ({@code System.trim_native_heap}). */
  private static void trimNativeHeap() throws IOException {
    try {
      ManagementFactory.getPlatformMBeanServer()
          .invoke(
              new ObjectName("com.sun.management:type=DiagnosticCommand"),
              "systemTrimNativeHeap",
              new Object[] {new String[0]},
              new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new IOException("System.trim_native_heap failed", e);
    }
  }

  /**
   * One memory mapping of the process: where it ends and how many of its bytes are resident
   * anonymous memory (file pages left out: the kernel may drop them under another process's
   * pressure, and the cache has none).
   */
  private record Mapping(long end, long resident) {}

  /** The process's memory mappings by start address, from {@code /proc/self/smaps}. */
  private static Map<Long, Mapping> mappings() throws IOException {
    Map<Long, Mapping> mappings = new HashMap<>();
    long start = -1;
    long end = -1;
    for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
      Matcher range = MAPPING.matcher(line);
      if (range.lookingAt()) {
        start = Long.parseUnsignedLong(range.group(1), 16);
        end = Long.parseUnsignedLong(range.group(2), 16);
      } else if (line.startsWith("Anonymous:")) {
        mappings.put(start, new Mapping(end, kilobytes(line)));
      }
    }
    if (mappings.isEmpty()) {
      throw new IOException("no mappings in /proc/self/smaps");
    }
    return mappings;
  }

  private static final Pattern MAPPING = Pattern.compile("([0-9a-f]+)-([0-9a-f]+) ");

  /**
   * The resident bytes the process gained outside its pre-touched heap: every byte of a mapping
   * made since {@code before}, and what a mapping whose range changed (one the kernel merged a new
   * mapping into, or a C heap that grew) gained. A mapping whose range did not change is left out:
   * the cache's native memory is all in mappings it makes as it fills, so such a mapping belongs to
   * the JVM (its heap, counted apart; its code cache, metaspace and thread stacks). Not the whole
   * resident set's growth: the JVM's own C-heap traffic during the fill moved that by several MB
   * either way between runs of the same fill (one CI run read 2 B/entry too many in each of three
   * fresh JVMs), while this sum came out the same to the byte in each run.
   */
  private static long residentGrowth(Map<Long, Mapping> before, Map<Long, Mapping> after) {
    long grown = 0;
    for (Map.Entry<Long, Mapping> mapping : after.entrySet()) {
      Mapping old = before.get(mapping.getKey());
      Mapping now = mapping.getValue();
      if (old == null) {
        grown += now.resident();
      } else if (old.end() != now.end()) {
        grown += Math.max(0, now.resident() - old.resident());
      }
    }
    return grown;
  }

  private static long kilobytes(String statusLine) {
    return Long.parseLong(statusLine.replaceAll("[^0-9]", "")) * 1024;
  }
}
