package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What small caches hold on the heap, measured by {@link SmallCacheHeapProbe} in a fresh JVM
 * (class histogram totals before and after building 2,000 caches, as seed 002's startup test
 * does): an empty cache at most 1 KiB whatever its bound, and one with 100 entries of 100 B no
 * more than a fixed cost beside its entries. Before the segments and the entry bound's policy
 * tables were made on first use, an empty cache bounded to 1,000 entries held 14.5 KB (12 KB of
 * them tables sized for the bound), and with 100 entries 32 KB with heap storage and 16 KB of
 * heap beside its off-heap page.
 */
class SmallCacheHeapTest {

  private static final List<String> FLAGS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC",
      "-XX:MarkSweepDeadRatio=0", "--enable-native-access=ALL-UNNAMED");
  private static final int CACHES = 2_000;

  /** An empty cache holds its configuration and a few small objects; nothing sized by a bound. */
  @ParameterizedTest
  @CsvSource({"OFF_HEAP, entries, 1000", "HEAP, entries, 1000", "OFF_HEAP, memory, 1073741824",
      "HEAP, entries, 1000000"})
  @Timeout(120)
  void anEmptyCacheHoldsAtMostOneKibibyte(Storage storage, String bound, long limit)
      throws Exception {
    double perCache = heapPerCache(storage, bound, limit, 0);
    assertTrue(perCache <= 1024, "an empty cache holds " + perCache + " B of heap");
  }

  /**
   * 100 entries of 100 B and a 10-character key (11.2 KB in the store's layout): with heap
   * storage, whose pages are on the heap, at most 16 KiB in all, so a page grows with what it
   * holds rather than coming at its full 16 KiB; off the heap, at most 4 KiB of heap beside the
   * pages.
   */
  @ParameterizedTest
  @CsvSource({"HEAP, 16384", "OFF_HEAP, 4096"})
  @Timeout(120)
  void aCacheOfAHundredEntriesHoldsLittleBesideThem(Storage storage, long most)
      throws Exception {
    double perCache = heapPerCache(storage, "entries", 1000, 100);
    assertTrue(perCache <= most, "a cache of 100 entries holds " + perCache + " B of heap");
  }

  private static double heapPerCache(Storage storage, String bound, long limit, int entries)
      throws Exception {
    Map<String, String> r = ProbeProcess.run(SmallCacheHeapProbe.class, FLAGS, 100,
        storage.name(), bound, Long.toString(limit), Integer.toString(CACHES),
        Integer.toString(entries));
    return Double.parseDouble(r.get("heapBytesPerCache"));
  }
}
