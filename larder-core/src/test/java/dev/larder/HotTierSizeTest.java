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
 * they are promoted: the compact entries are off the heap and loaded first, then every key is read
 * until hot, and the growth of the heap (after collections, until it is stable) is set against the
 * growth of the tier's counted bytes. Keys are fresh objects on every read, so the tier alone holds
 * the ones it keeps. The heap's growth over the same reads with the tier off is taken off.
 */
class HotTierSizeTest {

  private static final int ENTRIES = 20_000;

  /** Values of a shape the benchmark scenarios use, or a record of several JDK types. */
  // its functions are stateless lambdas
  @SuppressWarnings("ImmutableEnumChecker")
  enum Shape {
    STRING_1K(i -> "v".repeat(1_000) + i),
    NON_LATIN_STRING(i -> "\u20ac".repeat(100) + i),
    RECORD(
        i ->
            new HotTierTest.Price(
                "sku-" + i,
                BigDecimal.valueOf(i, 2),
                Instant.ofEpochSecond(1_700_000_000L + i, 5),
                new UUID(i, ~i))),
    LONG(i -> i * 1_000_003L);

    final LongFunction<Object> value;

    Shape(LongFunction<Object> value) {
      this.value = value;
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  @Timeout(120)
  void theEstimateMatchesTheHeapsGrowthWithinAtenth(Shape shape) throws Exception {
    // The same reads with the tier off: what the cache builds on its own as it is read (the
    // structures made on first use, the policy's tables) grows the heap in both runs.
    long[] control = readUntilHot(shape, 0);
    long[] tier = readUntilHot(shape, 1L << 30);
    long counted = tier[1];
    long grown = tier[0] - control[0];
    double error = (double) (counted - grown) / grown;
    System.out.printf(
        "hot tier %s: %d entries, heap grew %d B (%.1f B/entry) beyond the"
            + " control's %d B, counted %d B (%.1f B/entry), error %.3f%n",
        shape,
        ENTRIES,
        grown,
        (double) grown / ENTRIES,
        control[0],
        counted,
        (double) counted / ENTRIES,
        error);
    assertTrue(
        Math.abs(error) <= 0.10,
        shape
            + ": counted "
            + counted
            + " B, the heap grew "
            + grown
            + " B beyond the control's "
            + control[0]
            + " B");
  }

  /**
   * Loads, then reads every key six times; returns the heap's growth over the reads and the tier's.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static long[] readUntilHot(Shape shape, long tierBytes) throws Exception {
    Class<Object> type = (Class) shape.value.apply(0).getClass();
    try (Cache<Long, Object> cache =
        Cache.builder(Long.class, type)
            .storage(Storage.OFF_HEAP)
            .maximumEntries(4 * ENTRIES)
            .hotTier(tierBytes)
            .build()) {
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
      assertEquals(
          tierBytes == 0 ? 0 : ENTRIES,
          larder.hotTierSize(),
          tierBytes == 0 ? "no tier" : "every key promoted");
      long heapAfter = settledHeap();
      return new long[] {heapAfter - heapBefore, larder.hotTierBytes() - tierBefore};
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
