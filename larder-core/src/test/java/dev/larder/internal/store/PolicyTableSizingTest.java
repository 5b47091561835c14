package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.Storage;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * An entry bound is a ceiling, not a promise to fill: the policy's tables (12 bytes an entry)
 * are allocated at once only for bounds up to {@link Segment#EAGER_POLICY_ENTRIES} a segment,
 * and otherwise grow with the index to the size they would have had.
 */
class PolicyTableSizingTest {

  private static Segment segment(long maxEntries) {
    return new Segment(new StoreSettings(Storage.HEAP, 64 * 1024, Long.MAX_VALUE, maxEntries,
        -1, -1, false));
  }

  private static long eagerBytes(int entries) {
    return new FrequencySketch(entries, 16).bytes() + new GhostTable(entries, 1).bytes()
        + new AdmissionSample(entries).bytes();
  }

  @Test
  void aHugeEntryBoundAllocatesAlmostNothingUntilEntriesArrive() {
    try (Cache<Long, Long> cache = Cache.builder(Long.class, Long.class)
        .maximumEntries(Long.MAX_VALUE).build()) {
      cache.put(1L, 1L);
      assertTrue(cache.memoryUsed() < 4L << 20,
          "an empty cache of a Long.MAX_VALUE bound reserves " + cache.memoryUsed() + " bytes");
      assertEquals(1L, cache.getIfPresent(1L));
    }
  }

  @Test
  void smallBoundsGetTheirTablesAtOnce() {
    Segment s = segment(Segment.EAGER_POLICY_ENTRIES);
    assertEquals(eagerBytes(Segment.EAGER_POLICY_ENTRIES), s.policyBytes());
  }

  @Test
  void largeBoundsGrowTheirTablesToTheSizeTheyWouldHaveHad() {
    int bound = 200_000;
    Segment s = segment(bound);
    assertTrue(s.policyBytes() < eagerBytes(bound) / 100, "starts small: " + s.policyBytes());
    byte[] key = new byte[8];
    byte[] value = new byte[8];
    for (long i = 0; i < bound; i++) {
      ByteBuffer.wrap(key).putLong(0, i);
      s.put(key, 8, value, 8, Segment.hash(key, 8), PutMode.ALWAYS, null, false, 0);
    }
    assertEquals(bound, s.size());
    assertEquals(eagerBytes(bound), s.policyBytes(), "full size once the index holds the bound");
    s.close();
  }
}
