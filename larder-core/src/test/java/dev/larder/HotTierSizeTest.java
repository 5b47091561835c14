package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.internal.LarderCache;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hot tier's estimate of what its entries retain agrees with what the heap really gains when
 * they are promoted: the compact entries are off the heap and loaded first, then every key is
 * read until hot, and the growth of the heap (after collections, until it is stable) is set
 * against the growth of the tier's counted bytes. Keys are fresh objects on every read, so the
 * tier alone holds the ones it keeps.
 */
class HotTierSizeTest {

  private static final int ENTRIES = 20_000;

  /** Values of a shape the benchmark scenarios use, or a record of several JDK types. */
  enum Shape {
    STRING_1K(i -> "v".repeat(1_000) + i),
    NON_LATIN_STRING(i -> "\u20ac".repeat(100) + i),
    RECORD(i -> new HotTierTest.Price("sku-" + i, BigDecimal.valueOf(i, 2),
        Instant.ofEpochSecond(1_700_000_000L + i, 5), new UUID(i, ~i))),
    LONG(i -> i * 1_000_003L);

    final LongFunction<Object> value;

    Shape(LongFunction<Object> value) {
      this.value = value;
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  @Timeout(120)
  @SuppressWarnings({"unchecked", "rawtypes"})
  void theEstimateMatchesTheHeapsGrowthWithinAtenth(Shape shape) throws Exception {
    Class<Object> type = (Class) shape.value.apply(0).getClass();
    try (Cache<Long, Object> cache = Cache.builder(Long.class, type).storage(Storage.OFF_HEAP)
        .maximumEntries(4 * ENTRIES).hotTier(1L << 30).build()) {
      for (long k = 0; k < ENTRIES; k++) {
        cache.put(1_000 + k, shape.value.apply(k));
      }
      LarderCache<Long, Object> larder = (LarderCache<Long, Object>) cache;
      long heapBefore = settledHeap();
      long tierBefore = larder.hotTierBytes();
      for (int round = 0; round < 6; round++) {
        for (long k = 0; k < ENTRIES; k++) {
          // a new Long each time (above the valueOf cache): only the tier keeps one
          cache.getIfPresent(Long.valueOf(1_000 + k));
        }
      }
      assertEquals(ENTRIES, larder.hotTierSize(), "every key promoted");
      long heapAfter = settledHeap();
      long counted = larder.hotTierBytes() - tierBefore;
      long grown = heapAfter - heapBefore;
      double error = (double) (counted - grown) / grown;
      System.out.printf("hot tier %s: %d entries, heap grew %d B (%.1f B/entry), counted %d B"
          + " (%.1f B/entry), error %.3f%n", shape, ENTRIES, grown, (double) grown / ENTRIES,
          counted, (double) counted / ENTRIES, error);
      assertTrue(Math.abs(error) <= 0.10, shape + ": counted " + counted + " B, the heap grew "
          + grown + " B");
    }
  }

  /** Heap used after collections, once two in a row agree within 64 KiB. */
  static long settledHeap() throws InterruptedException {
    Runtime runtime = Runtime.getRuntime();
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int i = 0; i < 30; i++) {
      System.gc();
      Thread.sleep(50);
      used = runtime.totalMemory() - runtime.freeMemory();
      if (Math.abs(previous - used) < 64 * 1024) {
        return used;
      }
      previous = used;
    }
    return used;
  }
}
