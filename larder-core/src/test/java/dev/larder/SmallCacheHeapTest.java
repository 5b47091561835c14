package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What small caches hold on the heap, measured by {@link SmallCacheHeapProbe} in a fresh JVM (class
 * histogram totals before and after building 2,000 caches, as seed 002's startup test does): an
 * empty cache at most 1 KiB whatever its bound, and one with 100 entries of 100 B no more than a
 * small fixed cost beside its entries; in each case {@code memoryUsed()} reports at least the heap
 * the caches really took. Before the segments and the entry bound's policy tables were made on
 * first use, an empty cache bounded to 1,000 entries held 14.4 KB (12.3 KB of them tables sized for
 * the bound), and with 100 entries 31.8 KB with heap storage, and 15.9 KB of heap beside a mapped
 * 16 KiB page off the heap.
 */
class SmallCacheHeapTest {

  private static final List<String> FLAGS =
      List.of(
          "-Xms512m",
          "-Xmx512m",
          "-XX:+UseG1GC",
          "-XX:+AlwaysPreTouch",
          "-XX:MarkSweepDeadRatio=0",
          "--enable-native-access=ALL-UNNAMED");
  private static final int CACHES = 2_000;

  /** An empty cache holds its configuration and a few small objects; nothing sized by a bound. */
  @ParameterizedTest
  @CsvSource({
    "OFF_HEAP, entries, 1000",
    "HEAP, entries, 1000",
    "OFF_HEAP, memory, 1073741824",
    "HEAP, entries, 1000000"
  })
  @Timeout(120)
  void anEmptyCacheHoldsAtMostOneKibibyte(Storage storage, String bound, long limit)
      throws Exception {
    Map<String, String> r = probe(storage, bound, limit, 0);
    double perCache = Double.parseDouble(r.get("heapBytesPerCache"));
    assertTrue(perCache <= 1024, "an empty cache holds " + perCache + " B of heap: " + r);
    assertReportsAtLeastItsHeap(r);
  }

  /**
   * 100 entries of 100 B and a 10-character key (11.2 KB in the store's layout) take at most 16 KiB
   * of heap in either storage: a segment's first page is a heap array that grows with what it
   * holds, rather than a whole 16 KiB page (on the heap, or mapped and resident in whole 4 KiB
   * system pages beside a mapping's objects). Off the heap, the resident set beside the heap must
   * not hold such a page either: heap and native together at most 22 KiB, a bound loose enough for
   * the JVM's own growth in the resident set (up to 3 KB a cache either way in these runs), where a
   * mapped page made it 28 KB.
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void aCacheOfAHundredEntriesHoldsLittleBesideThem(Storage storage) throws Exception {
    Map<String, String> r = probe(storage, "entries", 1000, 100);
    double heap = Double.parseDouble(r.get("heapBytesPerCache"));
    assertTrue(heap <= 16 * 1024, "a cache of 100 entries holds " + heap + " B of heap: " + r);
    assertReportsAtLeastItsHeap(r);
    if (storage == Storage.OFF_HEAP) {
      double total = heap + Double.parseDouble(r.get("nativeBytesPerCache"));
      assertTrue(total <= 22 * 1024, "a cache of 100 entries holds " + total + " B: " + r);
    }
  }

  /**
   * {@code memoryUsed()} counts pages at their capacity and fixed estimates of the cache's objects
   * (its Javadoc): for a small cache that is more than the heap really grew by, never less, so a
   * byte bound never lets a small cache hold more heap than it allows.
   */
  private static void assertReportsAtLeastItsHeap(Map<String, String> r) {
    double heap = Double.parseDouble(r.get("heapBytesPerCache"));
    double reported = Double.parseDouble(r.get("memoryUsedPerCache"));
    assertTrue(
        heap <= reported,
        "memoryUsed() reports " + reported + " B a cache for " + heap + " B of heap: " + r);
  }

  private static Map<String, String> probe(Storage storage, String bound, long limit, int entries)
      throws Exception {
    return ProbeProcess.run(
        SmallCacheHeapProbe.class,
        FLAGS,
        100,
        storage.name(),
        bound,
        Long.toString(limit),
        Integer.toString(CACHES),
        Integer.toString(entries));
  }
}
