package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A write whose entry can never fit is refused before anything is evicted, and the refusal names
 * the largest entry the cache takes: one byte more is refused, that size is stored.
 */
class RefusedWriteTest {

  private static final Pattern LARGEST = Pattern.compile("the largest this cache takes is (\\d+)");
  private static final Pattern ENTRY = Pattern.compile("an entry of (\\d+) bytes");

  /** Every write that stores a value; each is given key 1000 (absent) or 0 (present). */
  enum Write {
    PUT,
    PUT_IF_ABSENT,
    GET_WITH_FUNCTION,
    COMPUTE,
    MAP_PUT,
    REPLACE,
    MERGE;

    void apply(Cache<Long, byte[]> cache, byte[] value) {
      switch (this) {
        case PUT -> cache.put(1000L, value);
        case PUT_IF_ABSENT -> cache.putIfAbsent(1000L, value);
        case GET_WITH_FUNCTION -> cache.get(1000L, k -> value);
        case COMPUTE -> cache.compute(1000L, (k, v) -> value);
        case MAP_PUT -> cache.asMap().put(1000L, value);
        case REPLACE -> cache.replace(0L, value);
        case MERGE -> cache.asMap().merge(0L, value, (a, b) -> b);
      }
    }
  }

  /** The case: one segment of 8 MiB, 100 entries of 1 KB, then 8,369,738 bytes. */
  @ParameterizedTest
  @EnumSource(Write.class)
  void aRefusedWriteEvictsNothing(Write write) {
    for (Storage storage : Storage.values()) {
      List<String> heard = new CopyOnWriteArrayList<>();
      try (Cache<Long, byte[]> cache = filled(storage, 8 << 20, 1, heard)) {
        IllegalArgumentException e =
            assertThrows(
                IllegalArgumentException.class, () -> write.apply(cache, new byte[8_369_738]));
        assertUnchanged(cache, heard, storage + " " + write + ": " + e.getMessage());
        cache.put(2000L, new byte[10]);
        assertEquals(List.of(), heard, "no removal surfaces with the next write");
      }
    }
  }

  /**
   * At the limit the message names: one byte more is refused intact, the limit is stored. The limit
   * is the key's segment's, and an update's can be a little higher than a new key's (its index
   * needs no room), so each write asks with its own key.
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  void theMessageNamesTheLargestEntryTaken(Storage storage) {
    for (long bound : new long[] {8 << 20, 64 << 20}) {
      List<String> heard = new CopyOnWriteArrayList<>();
      try (Cache<Long, byte[]> cache = filled(storage, bound, 0, heard)) {
        long largest = 0;
        long overhead = 0;
        for (Write write : new Write[] {Write.PUT, Write.GET_WITH_FUNCTION, Write.REPLACE}) {
          String message =
              assertThrows(
                      IllegalArgumentException.class,
                      () -> write.apply(cache, new byte[(int) bound]))
                  .getMessage();
          largest = number(LARGEST, message);
          overhead = number(ENTRY, message) - bound;
          assertTrue(largest > bound / 64 / 2 && largest < bound, message);
          byte[] over = new byte[(int) (largest - overhead + 1)];
          message =
              assertThrows(IllegalArgumentException.class, () -> write.apply(cache, over))
                  .getMessage();
          assertTrue(message.contains("takes is " + largest + " bytes"), message);
          assertUnchanged(cache, heard, storage + " " + bound + " " + write);
        }
        byte[] limit = new byte[(int) (largest - overhead)];
        cache.replace(0L, limit);
        assertArrayEquals(limit, cache.getIfPresent(0L));
        assertTrue(heard.contains("0:REPLACED"), heard.toString());
      }
    }
  }

  /** 100 entries of 1 KB, keys 0-99, with a synchronous listener. */
  private static Cache<Long, byte[]> filled(
      Storage storage, long bound, int segments, List<String> heard) {
    CacheBuilder<Long, byte[]> builder =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .recordStats()
            .executor(Runnable::run)
            .removalListener((k, v, cause) -> heard.add(k + ":" + cause));
    Cache<Long, byte[]> cache = (segments > 0 ? builder.segments(segments) : builder).build();
    for (long k = 0; k < 100; k++) {
      cache.put(k, value(k));
    }
    return cache;
  }

  private static byte[] value(long k) {
    byte[] value = new byte[1000];
    value[0] = (byte) k;
    return value;
  }

  private static void assertUnchanged(Cache<Long, byte[]> cache, List<String> heard, String what) {
    assertEquals(100, cache.estimatedSize(), what);
    assertEquals(List.of(), heard, what);
    assertEquals(0, cache.stats().evictionCount(), what);
    for (long k = 0; k < 100; k++) {
      assertArrayEquals(value(k), cache.getIfPresent(k), what);
    }
  }

  private static long number(Pattern pattern, String message) {
    Matcher m = pattern.matcher(message);
    assertTrue(m.find(), message);
    return Long.parseLong(m.group(1));
  }
}
