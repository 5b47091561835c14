package dev.larder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a nearly empty cache reserves follows what it holds, not its bound: 1,000 entries of 100 B
 * had memoryUsed() of 0.14 MiB at a 64 MiB bound but 32 MiB at 16 GiB and 250 MiB at 1 TiB, since
 * every segment's first page was 1/256 of its share of the bound (up to 1 MiB), and with heap
 * storage and -Xmx128m a 1 TiB bound ran out of memory at the 70th put. Segments whose bound calls
 * for pages over 64 KiB now start at 4 KiB and grow as they fill.
 */
class BoundIsACeilingTest {

  private static final long MIB = 1L << 20;

  @ParameterizedTest
  @CsvSource({
    "OFF_HEAP, 67108864",
    "OFF_HEAP, 17179869184",
    "OFF_HEAP, 1099511627776",
    "OFF_HEAP, 9223372036854775807",
    "HEAP, 67108864",
    "HEAP, 17179869184",
    "HEAP, 1099511627776",
    "HEAP, 9223372036854775807"
  })
  void aThousandSmallEntriesReserveLittleAtAnyBound(Storage storage, long bound) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .build()) {
      byte[] value = new byte[100];
      for (long key = 0; key < 1_000; key++) {
        cache.put(key, value);
      }
      // One segment until the cache holds 1 MiB (SegmentTable), whatever the bound: about
      // 0.14 MiB. With the 256 segments the largest bounds need from the start it was 1.4 MiB.
      long used = cache.memoryUsed();
      assertTrue(used <= MIB / 4, () -> "memoryUsed " + used + " at a bound of " + bound);
      assertTrue(cache.estimatedSize() == 1_000);
    }
  }
}
