package dev.larder;

import dev.larder.codec.Codecs;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.management.ObjectName;

/**
 * Measures what many small caches hold on the heap, the way {@code ./larder bench startup} builds
 * them: {@code caches} caches of {@code String} keys (10 characters) and 100-byte values, each
 * bounded as the arguments say and given {@code entries} entries, all kept open. The heap is read
 * from the class histogram ({@code GC.class_histogram}, which collects first), before and after, so
 * the growth counts exactly the live objects the caches added. Memory outside the heap is the
 * growth of the anonymous resident set (RssAnon + RssShmem, after trimming the C heap): exact for
 * pages, but it also carries the JVM's own growth, a few MB either way. Run in a fresh JVM with
 * {@code -Xms} = {@code -Xmx}, {@code -XX:+AlwaysPreTouch} (so the heap is resident from the start)
 * and {@code -XX:MarkSweepDeadRatio=0}; prints one {@code key=value} line.
 *
 * <p>Usage: {@code SmallCacheHeapProbe <OFF_HEAP|HEAP> <entries|memory> <bound> <caches>
 * <entries>}.
 */
public final class SmallCacheHeapProbe {

  private static final int VALUE_BYTES = 100;

  private SmallCacheHeapProbe() {}

  public static void main(String[] args) throws Exception {
    Storage storage = Storage.valueOf(args[0]);
    boolean byEntries = args[1].equals("entries");
    long bound = Long.parseLong(args[2]);
    int caches = Integer.parseInt(args[3]);
    int entries = Integer.parseInt(args[4]);
    // The same work first, so that classes are loaded and shared structures made before the
    // baseline.
    for (int i = 0; i < 200; i++) {
      try (Cache<String, byte[]> cache = build(storage, byEntries, bound)) {
        fill(cache, Math.max(1, entries), new SplittableRandom(i));
        cache.getIfPresent(key(0));
      }
    }
    long before = liveHeapBytes();
    long residentBefore = anonymousResidentBytes();
    List<Cache<String, byte[]>> kept = new ArrayList<>(caches);
    SplittableRandom random = new SplittableRandom(2);
    for (int i = 0; i < caches; i++) {
      Cache<String, byte[]> cache = build(storage, byEntries, bound);
      fill(cache, entries, random);
      kept.add(cache);
    }
    long after = liveHeapBytes();
    long residentAfter = anonymousResidentBytes();
    long memoryUsed = 0;
    for (Cache<String, byte[]> cache : kept) {
      memoryUsed += cache.memoryUsed();
    }
    System.out.printf(
        "caches=%d entries=%d heapBytesPerCache=%.1f nativeBytesPerCache=%.1f"
            + " memoryUsedPerCache=%.1f%n",
        kept.size(),
        entries,
        (double) (after - before) / caches,
        (double) (residentAfter - residentBefore) / caches,
        (double) memoryUsed / caches);
    for (Cache<String, byte[]> cache : kept) {
      cache.close();
    }
  }

  private static Cache<String, byte[]> build(Storage storage, boolean byEntries, long bound) {
    CacheBuilder<String, byte[]> builder =
        Cache.builder(Codecs.strings(), Codecs.bytes()).storage(storage);
    return (byEntries ? builder.maximumEntries(bound) : builder.maximumMemory(bound)).build();
  }

  private static void fill(Cache<String, byte[]> cache, int entries, SplittableRandom random) {
    for (int i = 0; i < entries; i++) {
      byte[] value = new byte[VALUE_BYTES];
      random.nextBytes(value);
      cache.put(key(i), value);
    }
  }

  private static String key(long i) {
    return String.format("%010d", i);
  }

  /** Returns the bytes of live objects, from the class histogram's total (after a collection). */
  private static long liveHeapBytes() throws Exception {
    String histogram = command("gcClassHistogram");
    for (String line : histogram.split("\n", -1)) {
      String[] fields = line.trim().split("\\s+", -1);
      if (fields.length == 3 && fields[0].equals("Total")) {
        return Long.parseLong(fields[2]);
      }
    }
    throw new IllegalStateException("no Total line in the class histogram:\n" + histogram);
  }

  /** Returns RssAnon + RssShmem, after giving the C heap's free memory back. */
  private static long anonymousResidentBytes() throws Exception {
    command("systemTrimNativeHeap");
    long bytes = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("RssAnon:") || line.startsWith("RssShmem:")) {
        bytes += Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return bytes;
  }

  private static String command(String name) throws Exception {
    return (String)
        ManagementFactory.getPlatformMBeanServer()
            .invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"),
                name,
                new Object[] {new String[0]},
                new String[] {String[].class.getName()});
  }
}
