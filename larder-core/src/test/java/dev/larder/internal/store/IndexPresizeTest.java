package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.Storage;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A segment sized for n entries ({@link Segment#presize}, behind {@code
 * CacheBuilder.initialCapacity}) takes n entries without growing its index, at a load inside the
 * band that growing keeps (so memory per entry is what growth gives), and sizes nothing its bound
 * cannot hold or a segment already in use.
 */
class IndexPresizeTest {

  private static Segment segment(long budgetBytes) {
    return new Segment(
        new StoreSettings(Storage.HEAP, 64 * 1024, budgetBytes, Long.MAX_VALUE, -1, -1, false));
  }

  private static void fill(Segment s, int entries) {
    byte[] key = new byte[8];
    byte[] value = new byte[100];
    for (long i = 0; i < entries; i++) {
      ByteBuffer.wrap(key).putLong(0, i);
      s.put(key, 8, value, value.length, Segment.hash(key, 8), PutMode.ALWAYS, null, false, 0);
    }
  }

  @Test
  void aPresizedIndexTakesItsEntriesWithoutGrowing() {
    int entries = 60_000;
    Segment s = segment(Long.MAX_VALUE);
    s.presize(entries);
    int capacity = s.indexCapacity();
    double load = (double) entries / capacity;
    assertTrue(load > 0.71 && load <= 0.85, "load once full: " + load);
    fill(s, entries);
    assertEquals(entries, s.size());
    assertEquals(capacity, s.indexCapacity(), "the index grew while filling");
    s.close();
  }

  @Test
  void aSegmentInUseOrABoundTooSmallIsNotPresized() {
    Segment used = segment(Long.MAX_VALUE);
    fill(used, 10);
    int before = used.indexCapacity();
    used.presize(1_000_000);
    assertEquals(before, used.indexCapacity(), "a segment holding entries");
    used.close();

    Segment small = segment(256 * 1024);
    small.presize(1_000_000); // an index of 8 MB in a bound of 256 KiB
    assertTrue(small.indexCapacity() < 1000, "capacity " + small.indexCapacity());
    assertTrue(small.memoryUsed() <= 256 * 1024);
    small.close();
  }

  /** The builder's option: every stripe sized from the start, memory per entry as when grown. */
  @Test
  void aCacheBuiltWithAnInitialCapacityHoldsItAsAGrownOneDoes() {
    int entries = 200_000;
    long grown;
    long presized;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Long.class, byte[].class).maximumMemory(256L << 20).build()) {
      for (long i = 0; i < entries; i++) {
        cache.put(i, new byte[100]);
      }
      grown = cache.memoryUsed();
    }
    try (Cache<Long, byte[]> cache =
        Cache.builder(Long.class, byte[].class)
            .maximumMemory(256L << 20)
            .initialCapacity(entries)
            .build()) {
      cache.put(-1L, new byte[100]);
      assertTrue(
          cache.memoryUsed() > 8L * entries, "the indexes reserved at once: " + cache.memoryUsed());
      cache.invalidate(-1L);
      for (long i = 0; i < entries; i++) {
        cache.put(i, new byte[100]);
      }
      presized = cache.memoryUsed();
      assertEquals(entries, cache.estimatedSize());
    }
    assertTrue(
        Math.abs(presized - grown) < grown / 50,
        "memory with the index presized " + presized + ", grown " + grown);
  }
}
