package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Small caches cost little: with {@code maximumMemory(1 GiB)} an empty cache's memoryUsed() is at
 * most 2 KiB, and with 100, 1,000 and 10,000 entries of 100-200 B it is at most 1.3 x (key bytes +
 * value bytes) + 16 KiB. memoryUsed() is deterministic for a given sequence of writes, so these are
 * exact bounds. Before this change such a cache had its 16 segments from the start: 17,152 B empty,
 * 86,272 B at 100 entries, 234,328 B at 1,000.
 */
class SmallCacheFootprintTest {

  private static final long GIB = 1L << 30;

  @ParameterizedTest
  @EnumSource(Storage.class)
  void anEmptyCacheCostsAtMostTwoKibibytes(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build()) {
      assertTrue(cache.memoryUsed() <= 2048, () -> "empty: " + cache.memoryUsed());
    }
  }

  @ParameterizedTest
  @CsvSource({
    "OFF_HEAP, 100",
    "OFF_HEAP, 1000",
    "OFF_HEAP, 10000",
    "HEAP, 100",
    "HEAP, 1000",
    "HEAP, 10000"
  })
  void memoryFollowsTheContents(Storage storage, int entries) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build()) {
      long payload = fill(cache, entries);
      long used = cache.memoryUsed();
      long limit = (long) (1.3 * payload) + 16 * 1024;
      assertTrue(
          used <= limit,
          () -> entries + " entries of " + payload + " B: memoryUsed " + used + " > " + limit);
      assertEquals(entries, cache.estimatedSize());
    }
  }

  /**
   * A cache that holds more than its first segment's split point has the segments its bound calls
   * for, and costs no more than when it had them from the start (these figures, from before the
   * change, are what it still costs).
   */
  @ParameterizedTest
  @CsvSource({
    "OFF_HEAP, 10000, 1885248",
    "OFF_HEAP, 100000, 18136384",
    "HEAP, 10000, 1885248",
    "HEAP, 100000, 18136384"
  })
  void aSplitCacheCostsNoMoreThanBefore(Storage storage, int entries, long before) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build()) {
      fill(cache, entries);
      assertTrue(cache.memoryUsed() <= before, () -> "memoryUsed " + cache.memoryUsed());
    }
  }

  /** Values of 100-200 B under keys 0..n-1, the same for every call. */
  static long fill(Cache<Long, byte[]> cache, int entries) {
    Random random = new Random(entries);
    long payload = 0;
    for (long key = 0; key < entries; key++) {
      byte[] value = new byte[100 + random.nextInt(101)];
      cache.put(key, value);
      payload += Long.BYTES + value.length;
    }
    return payload;
  }
}
