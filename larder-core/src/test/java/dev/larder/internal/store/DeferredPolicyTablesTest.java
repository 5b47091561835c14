package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The policy tables an entry-bounded segment makes when first needed answer every question as
 * tables made at once would: the same operations, in the same order, on a deferred and an eager
 * table give the same answers at every step. That is what keeps every eviction decision, and so
 * every hit ratio, unchanged.
 */
class DeferredPolicyTablesTest {

  /**
   * Increments (a small key space, so that counters saturate and the sketch ages), estimates of
   * every key, history changes and resizes, interleaved at random.
   */
  @ParameterizedTest
  @ValueSource(ints = {16, 100, 1000, 5000})
  void aDeferredSketchCountsAsAnEagerOne(int entries) {
    SplittableRandom random = new SplittableRandom(entries);
    FrequencySketch eager = new FrequencySketch(entries, 16);
    FrequencySketch deferred = new FrequencySketch(entries, 16, true);
    assertFalse(deferred.built());
    assertEquals(0, deferred.bytes(), "nothing held before the first count");
    long[] keys = random.longs(Math.max(8, entries / 4)).toArray();
    int size = entries;
    for (int step = 0; step < 40 * entries; step++) {
      long hash = keys[random.nextInt(keys.length)];
      int op = random.nextInt(1000);
      if (op < 990) {
        eager.increment(hash);
        deferred.increment(hash);
      } else if (op < 998) {
        for (long key : keys) {
          assertEquals(eager.frequency(key), deferred.frequency(key), "step " + step);
        }
      } else if (op < 999) {
        double factor = 5 + random.nextDouble() * 15;
        eager.agingFactor(factor);
        deferred.agingFactor(factor);
      } else {
        size = Math.min(16 * entries, size + random.nextInt(size));
        eager.ensureCapacity(size);
        deferred.ensureCapacity(size);
      }
    }
    for (long hash : keys) {
      assertEquals(eager.frequency(hash), deferred.frequency(hash));
    }
    assertTrue(deferred.built());
    assertEquals(eager.bytes(), deferred.bytes());
  }

  /** A deferred sketch builds its table by itself once its record would pass a quarter of it. */
  @ParameterizedTest
  @ValueSource(ints = {16, 1000})
  void aDeferredSketchHoldsAtMostAQuarterOfItsTableInRecords(int entries) {
    FrequencySketch deferred = new FrequencySketch(entries, 16, true);
    FrequencySketch eager = new FrequencySketch(entries, 16);
    for (long hash = 1; !deferred.built(); hash++) {
      assertTrue(
          deferred.bytes() <= Math.max(16 + 8 * 8, eager.bytes() / 4 + 16),
          "record of " + deferred.bytes() + " B beside a table of " + eager.bytes());
      deferred.increment(hash * 0x9E3779B97F4A7C15L);
      eager.increment(hash * 0x9E3779B97F4A7C15L);
      assertTrue(hash < entries, "the table was never built");
    }
    assertEquals(eager.bytes(), deferred.bytes());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 8})
  void aLazyGhostTableAnswersAsAnEagerOne(int entriesPerSlot) {
    SplittableRandom random = new SplittableRandom(entriesPerSlot);
    GhostTable eager = new GhostTable(1000, entriesPerSlot);
    GhostTable lazy = new GhostTable(1000, entriesPerSlot, true);
    assertEquals(0, lazy.bytes());
    long[] keys = random.longs(300).toArray();
    long position = 0;
    int expected = 1000;
    for (int step = 0; step < 20_000; step++) {
      long hash = keys[random.nextInt(keys.length)];
      int op = random.nextInt(100);
      position += random.nextInt(200);
      if (op < 40) {
        assertEquals(
            eager.distance(hash, position, position / 2),
            lazy.distance(hash, position, position / 2),
            "step " + step);
      } else if (op < 45) {
        eager.remove(hash);
        lazy.remove(hash);
      } else if (op < 47) {
        long stepBytes = 1L << random.nextInt(30);
        eager.fitStep(stepBytes);
        lazy.fitStep(stepBytes);
      } else if (op < 48) {
        expected = Math.min(16_000, expected + random.nextInt(expected));
        eager.ensureCapacity(expected);
        lazy.ensureCapacity(expected);
      } else if (step > 1000) {
        // no ghost at first: lookups, steps and growth on a table that has none yet
        boolean marginal = random.nextBoolean();
        int queue = random.nextInt(2);
        eager.add(hash, queue, position, marginal);
        lazy.add(hash, queue, position, marginal);
      }
    }
    assertEquals(eager.bytes(), lazy.bytes());
  }

  @Test
  void aLazyAdmissionSampleAnswersAsAnEagerOne() {
    SplittableRandom random = new SplittableRandom(3);
    AdmissionSample eager = new AdmissionSample(1000);
    AdmissionSample lazy = new AdmissionSample(1000, true);
    assertEquals(0, lazy.bytes());
    long[] keys = random.longs(200).toArray();
    int expected = 1000;
    for (int step = 0; step < 20_000; step++) {
      long hash = keys[random.nextInt(keys.length)];
      int op = random.nextInt(100);
      if (op < 40) {
        assertEquals(eager.remove(hash), lazy.remove(hash), "step " + step);
      } else if (op < 42) {
        eager.endPeriod();
        lazy.endPeriod();
      } else if (op < 43) {
        expected = Math.min(16_000, expected + random.nextInt(expected));
        eager.ensureCapacity(expected);
        lazy.ensureCapacity(expected);
      } else if (step > 1000) {
        eager.add(hash);
        lazy.add(hash);
      }
      assertEquals(eager.size(), lazy.size(), "step " + step);
    }
    assertEquals(eager.bytes(), lazy.bytes());
  }
}
