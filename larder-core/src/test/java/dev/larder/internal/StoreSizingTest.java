package dev.larder.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Storage;
import dev.larder.codec.Codecs;
import dev.larder.internal.store.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Segment counts: derived from the bound, or asked for, but never so few that the segments' indexes
 * stop the cache short of its bound, nor so many that a segment's share of the bound cannot hold an
 * entry.
 */
class StoreSizingTest {

  @ParameterizedTest(name = "entries {0}, asked {1}: {2}")
  @CsvSource({
    // derived: one segment per 4096 entries, up to 16
    "1000, 0, 1",
    "100000, 0, 16",
    "50000000, 0, 16",
    // more than 16 segments' indexes hold (about 57 million): as many as needed, a power of two
    "60000000, 0, 32",
    "100000000, 0, 32",
    "1000000000, 0, 256",
    // asked for: kept, unless the bound cannot give each one an entry, or needs more
    "1000, 64, 64",
    "10, 256, 8",
    "1, 16, 1",
    "100000000, 4, 32"
  })
  void entryBoundSegments(long entries, int asked, int expected) {
    assertEquals(expected, StoreSizing.segments(config(-1, entries, asked)));
  }

  @ParameterizedTest(name = "{0} bytes, asked {1}: {2}")
  @CsvSource({
    // derived: one segment per 16 MiB, up to 16
    "65536, 0, 1",
    "33554432, 0, 2",
    "1073741824, 0, 16",
    "2147483648, 0, 16",
    // past 2 GiB, a segment per 128 MiB, so that entries of a few dozen bytes fill the budget
    // before the index: 4 GiB needs 32, 64 GiB the most there are
    "4294967296, 0, 32",
    "68719476736, 0, 256",
    // asked for: each segment keeps at least 64 KiB
    "65536, 16, 1",
    "1048576, 256, 8",
    "4294967296, 8, 32"
  })
  void memoryBoundSegments(long bytes, int asked, int expected) {
    assertEquals(expected, StoreSizing.segments(config(bytes, -1, asked)));
  }

  @Test
  void unboundedCachesGetSixteenSegmentsOrWhatTheyAskFor() {
    assertEquals(16, StoreSizing.segments(config(-1, -1, 0)));
    assertEquals(256, StoreSizing.segments(config(-1, -1, 256)));
  }

  @Test
  void theDerivedCountsHoldTheirBound() {
    for (long entries = 1; entries < (1L << 40); entries *= 3) {
      int segments = StoreSizing.segments(config(-1, entries, 0));
      assertTrue(
          entries <= (long) segments * Segment.MAX_ENTRIES || segments == StoreSizing.MOST_SEGMENTS,
          entries + " entries, " + segments);
    }
  }

  private static CacheConfig<Long, Long> config(long bytes, long entries, int segments) {
    return new CacheConfig<>(
        Codecs.longs(),
        Codecs.longs(),
        bytes,
        entries,
        Storage.HEAP,
        0,
        0,
        null,
        null,
        null,
        false,
        Runnable::run,
        System::nanoTime,
        segments,
        null,
        0,
        Long.MAX_VALUE,
        0);
  }
}
