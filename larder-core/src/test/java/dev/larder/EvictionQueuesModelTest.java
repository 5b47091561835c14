package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The eviction queues (window, main, protected) against a model, under a seeded mix of reads of a
 * skewed key set (so that entries reach the protected queue and are demoted from it), writes of
 * values of changing sizes (dead bytes, hence compaction of pages of every queue) and removals:
 * whatever the policy evicts, a read returns the last value written or nothing, the bound holds
 * after every operation, and the cache holds exactly the keys that read back.
 */
class EvictionQueuesModelTest {

  @ParameterizedTest
  @CsvSource({"HEAP, false, 1", "HEAP, true, 2", "OFF_HEAP, false, 3", "OFF_HEAP, true, 4"})
  void readsReturnTheLastWrittenValueOrNothingAndTheBoundHolds(
      Storage storage, boolean bytes, long seed) {
    long memoryBound = 384 << 10;
    int entryBound = 500;
    CacheBuilder<Long, byte[]> builder =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage);
    Map<Long, byte[]> model = new HashMap<>();
    Random random = new Random(seed);
    try (Cache<Long, byte[]> cache =
        bytes
            ? builder.maximumMemory(memoryBound).build()
            : builder.maximumEntries(entryBound).build()) {
      for (int op = 0; op < 60_000; op++) {
        // skewed keys: six hundred hot keys, more than the protected queue holds, and a long
        // tail read rarely
        long key = random.nextInt(4) == 0 ? random.nextInt(5000) : random.nextInt(600);
        int action = random.nextInt(20);
        if (action < 17) {
          // cache-aside read: a miss writes the value
          byte[] value = cache.getIfPresent(key);
          if (value != null) {
            assertArrayEquals(model.get(key), value, "key " + key);
          } else {
            model.remove(key);
            put(cache, model, key, random, bytes);
          }
        } else if (action < 19) {
          put(cache, model, key, random, bytes);
        } else {
          cache.invalidate(key);
          model.remove(key);
        }
        if (bytes) {
          assertTrue(cache.memoryUsed() <= memoryBound, "memoryUsed " + cache.memoryUsed());
        } else {
          assertTrue(cache.estimatedSize() <= entryBound, "size " + cache.estimatedSize());
        }
      }
      int present = 0;
      for (Map.Entry<Long, byte[]> entry : model.entrySet()) {
        byte[] value = cache.getIfPresent(entry.getKey());
        if (value != null) {
          assertArrayEquals(entry.getValue(), value, "key " + entry.getKey());
          present++;
        }
      }
      assertEquals(present, cache.estimatedSize());
      assertTrue(present > (bytes ? 100 : entryBound / 2), "only " + present + " entries kept");
    }
  }

  /** Writes a value of a new size (the old version's bytes die in their page). */
  private static void put(
      Cache<Long, byte[]> cache, Map<Long, byte[]> model, long key, Random random, boolean bytes) {
    byte[] value = new byte[1 + random.nextInt(bytes ? 1200 : 64)];
    random.nextBytes(value);
    cache.put(key, value);
    model.put(key, value);
  }
}
