package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The eviction listener hears evictions and nothing else: overwrites and explicit removals are not
 * told to it (nor copied out for it), every eviction is, with the evicted key and value, and beside
 * a removal listener it hears exactly the evictions among that listener's notices.
 */
class EvictionListenerTest {

  private static final int KEYS = 4_000;

  private static byte[] value(int key, int round) {
    return ByteBuffer.allocate(200).putInt(key).putInt(round).array();
  }

  @Test
  void hearsEveryEvictionAndNoReplacementOrRemoval() {
    List<RemovalCause> causes = new ArrayList<>();
    Map<Integer, byte[]> evicted = new ConcurrentHashMap<>();
    try (Cache<Integer, byte[]> cache =
        Cache.builder(Integer.class, byte[].class)
            .maximumMemory(256 * 1024)
            .recordStats()
            .executor(Runnable::run)
            .evictionListener(
                (Integer k, byte[] v, RemovalCause c) -> {
                  causes.add(c);
                  assertNull(evicted.put(k, v), "key " + k + " evicted twice");
                })
            .build()) {
      for (int round = 0; round < 2; round++) {
        for (int k = 0; k < KEYS; k++) {
          evicted.remove(k);
          cache.put(k, value(k, round));
          if (k % 7 == 0) {
            cache.remove(k);
          }
        }
      }
      long evictions = cache.stats().evictionCount();
      assertTrue(evictions > 0, "the bound must have evicted something");
      assertEquals(evictions, causes.size(), "one notice per eviction");
      assertTrue(causes.stream().allMatch(c -> c == RemovalCause.SIZE), causes::toString);
      for (Map.Entry<Integer, byte[]> e : evicted.entrySet()) {
        int k = e.getKey();
        // An evicted key was not written again since, so it is absent, and the notice carries
        // the value of its last write.
        assertFalse(cache.containsKey(k), "key " + k + " reported evicted but present");
        assertEquals(k, ByteBuffer.wrap(e.getValue()).getInt());
      }
    }
  }

  @Test
  void besideARemovalListenerHearsTheEvictionsAmongItsNotices() {
    List<RemovalCause> all = new ArrayList<>();
    List<RemovalCause> evictions = new ArrayList<>();
    try (Cache<Integer, byte[]> cache =
        Cache.builder(Integer.class, byte[].class)
            .maximumMemory(256 * 1024)
            .executor(Runnable::run)
            .removalListener((Integer k, byte[] v, RemovalCause c) -> all.add(c))
            .evictionListener((Integer k, byte[] v, RemovalCause c) -> evictions.add(c))
            .build()) {
      for (int round = 0; round < 2; round++) {
        for (int k = 0; k < KEYS; k++) {
          cache.put(k, value(k, round));
          if (k % 7 == 0) {
            cache.remove(k);
          }
        }
      }
    }
    assertTrue(all.contains(RemovalCause.REPLACED) && all.contains(RemovalCause.EXPLICIT));
    assertEquals(all.stream().filter(RemovalCause::wasEvicted).toList(), evictions);
    assertFalse(evictions.isEmpty());
  }
}
