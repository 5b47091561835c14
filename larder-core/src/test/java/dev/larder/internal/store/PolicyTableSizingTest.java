package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.Storage;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * An entry bound is a ceiling, not a promise to fill: the policy's tables (12 bytes an entry) are
 * sized for the bound at once only for bounds up to {@link Segment#EAGER_POLICY_ENTRIES} a segment,
 * and otherwise grow with the index to the size they would have had; and whatever their size, none
 * is made before it is needed.
 */
class PolicyTableSizingTest {

  private static Segment segment(long maxEntries) {
    return new Segment(
        new StoreSettings(Storage.HEAP, 64 * 1024, Long.MAX_VALUE, maxEntries, -1, -1, false));
  }

  private static long eagerBytes(int entries) {
    return new FrequencySketch(entries, 16).bytes()
        + new GhostTable(entries, 1).bytes()
        + new AdmissionSample(entries).bytes();
  }

  @Test
  void aHugeEntryBoundAllocatesAlmostNothingUntilEntriesArrive() {
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class).maximumEntries(Long.MAX_VALUE).build()) {
      cache.put(1L, 1L);
      assertTrue(
          cache.memoryUsed() < 4L << 20,
          "an empty cache of a Long.MAX_VALUE bound reserves " + cache.memoryUsed() + " bytes");
      assertEquals(1L, cache.getIfPresent(1L));
    }
  }

  @Test
  void smallBoundsSizeTheirTablesAtOnce() {
    Segment s = segment(Segment.EAGER_POLICY_ENTRIES);
    assertEquals(eagerBytes(Segment.EAGER_POLICY_ENTRIES), s.policyTableBytes());
  }

  /**
   * An entry-bounded segment makes no table before it is used; its sketch's, once it has counted
   * enough requests, is the size the bound calls for.
   */
  @Test
  void tablesAreMadeWhenFirstNeeded() {
    int bound = 1000;
    Segment s = segment(bound);
    assertEquals(0, s.policyBytes(), "an unused segment's tables");
    byte[] key = new byte[8];
    for (long i = 0; i < bound; i++) {
      ByteBuffer.wrap(key).putLong(0, i);
      s.get(key, 8, Segment.hash(key, 8), 0, false); // a miss, counted in the sketch
    }
    assertEquals(
        new FrequencySketch(bound, 16).bytes(),
        s.policyBytes(),
        "the sketch, made once it counted a quarter of its size in requests");
    s.close();
  }

  @Test
  void largeBoundsGrowTheirTablesToTheSizeTheyWouldHaveHad() {
    int bound = 200_000;
    Segment s = segment(bound);
    assertTrue(
        s.policyTableBytes() < eagerBytes(bound) / 100, "starts small: " + s.policyTableBytes());
    byte[] key = new byte[8];
    byte[] value = new byte[8];
    for (long i = 0; i < bound; i++) {
      ByteBuffer.wrap(key).putLong(0, i);
      s.put(key, 8, value, 8, Segment.hash(key, 8), PutMode.ALWAYS, null, false, 0);
    }
    assertEquals(bound, s.size());
    assertEquals(
        eagerBytes(bound), s.policyTableBytes(), "full size once the index holds the bound");
    s.close();
  }
}
