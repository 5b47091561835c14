package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Cache contract, run against every storage mode. */
class CacheContractTest {

  private static Cache<String, String> strings(Storage storage) {
    return Cache.builder(String.class, String.class)
        .storage(storage)
        .maximumMemory(4 << 20)
        .recordStats()
        .build();
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void putThenGetReturnsAnEqualCopy(Storage storage) {
    try (Cache<String, byte[]> cache =
        Cache.builder(Codecs.strings(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(1 << 20)
            .build()) {
      byte[] value = {1, 2, 3};
      cache.put("k", value);
      byte[] read = cache.getIfPresent("k");
      assertArrayEquals(value, read);
      read[0] = 9;
      assertEquals(1, cache.getIfPresent("k")[0], "the cache holds bytes, not the object");
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void putReplacesAndRemoveRemoves(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      assertNull(cache.getIfPresent("a"));
      cache.put("a", "1");
      cache.put("a", "2");
      assertEquals("2", cache.getIfPresent("a"));
      assertEquals(1, cache.estimatedSize());
      assertEquals("2", cache.remove("a"));
      assertNull(cache.getIfPresent("a"));
      assertNull(cache.remove("a"));
      assertEquals(0, cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void conditionalWrites(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      assertNull(cache.putIfAbsent("k", "1"));
      assertEquals("1", cache.putIfAbsent("k", "2"));
      assertEquals("1", cache.replace("k", "3"));
      assertNull(cache.replace("absent", "x"));
      assertFalse(cache.containsKey("absent"));
      assertFalse(cache.replace("k", "wrong", "4"));
      assertTrue(cache.replace("k", "3", "4"));
      assertFalse(cache.remove("k", "3"));
      assertTrue(cache.remove("k", "4"));
      assertFalse(cache.containsKey("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void computeAppliesAtomically(Storage storage) {
    try (Cache<String, Long> cache =
        Cache.builder(String.class, Long.class).storage(storage).maximumEntries(100).build()) {
      assertEquals(1L, cache.compute("n", (k, v) -> v == null ? 1L : v + 1));
      assertEquals(2L, cache.compute("n", (k, v) -> v == null ? 1L : v + 1));
      assertNull(cache.compute("n", (k, v) -> null));
      assertFalse(cache.containsKey("n"));
      assertNull(cache.compute("none", (k, v) -> null));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void manyEntriesSurviveIndexGrowth(Storage storage) {
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class).storage(storage).unbounded().build()) {
      for (long i = 0; i < 50_000; i++) {
        cache.put(i, i * 7);
      }
      assertEquals(50_000, cache.estimatedSize());
      for (long i = 0; i < 50_000; i++) {
        assertEquals(i * 7, cache.getIfPresent(i), "key " + i);
      }
      for (long i = 0; i < 50_000; i += 2) {
        cache.invalidate(i);
      }
      for (long i = 0; i < 50_000; i++) {
        assertEquals(i % 2 == 0 ? null : i * 7, cache.getIfPresent(i), "key " + i);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void entryBoundHolds(Storage storage) {
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class)
            .storage(storage)
            .maximumEntries(1000)
            .recordStats()
            .build()) {
      for (long i = 0; i < 20_000; i++) {
        cache.put(i, i);
        assertTrue(cache.estimatedSize() <= 1000);
      }
      assertEquals(1000, cache.estimatedSize());
      assertEquals(19_000, cache.stats().evictionCount());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void entryBoundHoldsWithMoreSegmentsAskedForThanEntries(Storage storage) {
    for (long bound : new long[] {1, 10, 100}) {
      try (Cache<Long, Long> cache =
          Cache.builder(Long.class, Long.class)
              .storage(storage)
              .maximumEntries(bound)
              .segments(256)
              .build()) {
        for (long i = 0; i < 5_000; i++) {
          cache.put(i, i);
          assertTrue(cache.estimatedSize() <= bound, "size " + cache.estimatedSize());
        }
        long present =
            java.util.stream.LongStream.range(0, 5_000)
                .filter(i -> cache.getIfPresent(i) != null)
                .count();
        assertTrue(present <= bound, present + " entries readable under a bound of " + bound);
        assertEquals(4_999L, (long) cache.getIfPresent(4_999L), "the last write is kept");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void smallMemoryBoundStoresWithMoreSegmentsAskedForThanItCanSplitInto(Storage storage) {
    long bound = 64 << 10;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .segments(16)
            .build()) {
      for (long i = 0; i < 2_000; i++) {
        cache.put(i, new byte[100]);
        assertTrue(cache.memoryUsed() <= bound, "memoryUsed " + cache.memoryUsed());
      }
      assertTrue(cache.estimatedSize() > 100, "size " + cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void memoryBoundHolds(Storage storage) {
    long bound = 2 << 20;
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(bound)
            .build()) {
      java.util.Random random = new java.util.Random(1);
      for (long i = 0; i < 20_000; i++) {
        cache.put(i, new byte[100 + random.nextInt(2000)]);
        assertTrue(cache.memoryUsed() <= bound, "memoryUsed " + cache.memoryUsed());
      }
      assertTrue(cache.estimatedSize() > 500, "size " + cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void largeValuesGetTheirOwnPages(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(64L << 20)
            .build()) {
      byte[] big = new byte[3 << 20];
      big[big.length - 1] = 42;
      for (long i = 0; i < 40; i++) {
        cache.put(i, big);
        assertTrue(cache.memoryUsed() <= 64L << 20);
      }
      long present = 0;
      for (long i = 0; i < 40; i++) {
        byte[] read = cache.getIfPresent(i);
        if (read != null) {
          present++;
          assertEquals(42, read[read.length - 1]);
        }
      }
      assertTrue(present >= 10, "present " + present);
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void valueThatCanNeverFitIsRefusedAndLeavesTheCacheUnchanged(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(1 << 20)
            .build()) {
      cache.put(1L, new byte[10]);
      assertThrows(IllegalArgumentException.class, () -> cache.put(2L, new byte[2 << 20]));
      assertEquals(1, cache.estimatedSize());
      assertArrayEquals(new byte[10], cache.getIfPresent(1L));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void nullsAreRefusedWithTheArgumentNamed(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      NullPointerException e = assertThrows(NullPointerException.class, () -> cache.put(null, "v"));
      assertEquals("key", e.getMessage());
      e = assertThrows(NullPointerException.class, () -> cache.put("k", null));
      assertEquals("value", e.getMessage());
      assertThrows(NullPointerException.class, () -> cache.getIfPresent(null));
      assertThrows(NullPointerException.class, () -> cache.get("k", null));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void useAfterCloseThrowsIllegalState(Storage storage) {
    Cache<String, String> cache = strings(storage);
    cache.put("k", "v");
    cache.close();
    cache.close();
    assertEveryCallButCloseThrows(cache);
  }

  /**
   * A cache makes its segments at its first use; one closed before that must refuse every call as a
   * used one does, and never make them afterwards (whether its bound starts it with one segment, or
   * split into its stripes).
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  void useAfterCloseThrowsIllegalStateAlsoInACacheNeverUsed(Storage storage) {
    for (Cache<String, String> cache :
        List.of(
            strings(storage),
            Cache.builder(Codecs.strings(), Codecs.strings())
                .storage(storage)
                .maximumMemory(1L << 30)
                .build(),
            Cache.builder(Codecs.strings(), Codecs.strings())
                .storage(storage)
                .maximumEntries(64)
                .build())) {
      cache.close();
      cache.close();
      assertEveryCallButCloseThrows(cache);
      cache.close();
    }
  }

  private static void assertEveryCallButCloseThrows(Cache<String, String> cache) {
    assertThrows(IllegalStateException.class, () -> cache.getIfPresent("k"));
    assertThrows(IllegalStateException.class, () -> cache.put("k", "v"));
    assertThrows(IllegalStateException.class, () -> cache.remove("k"));
    assertThrows(IllegalStateException.class, cache::invalidateAll);
    // Every call but close, also those that would touch no entry.
    assertThrows(IllegalStateException.class, cache::estimatedSize);
    assertThrows(IllegalStateException.class, cache::memoryUsed);
    assertThrows(IllegalStateException.class, cache::stats);
    assertThrows(IllegalStateException.class, cache::cleanUp);
    assertThrows(IllegalStateException.class, () -> cache.asMap().size());
    assertThrows(IllegalStateException.class, () -> cache.asMap().isEmpty());
    assertThrows(IllegalStateException.class, () -> cache.asMap().entrySet().iterator().hasNext());
    assertThrows(IllegalStateException.class, () -> cache.getAll(List.of()));
    assertThrows(IllegalStateException.class, () -> cache.putAll(Map.of()));
    assertThrows(IllegalStateException.class, () -> cache.invalidateAll(List.of()));
    assertThrows(IllegalStateException.class, () -> cache.containsKey("k"));
    assertThrows(IllegalStateException.class, () -> cache.compute("k", (k, v) -> v));
    assertThrows(IllegalStateException.class, () -> cache.get("k", k -> "v"));
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void failingCodecLeavesTheCacheUnchanged(Storage storage) {
    Codec<String> failing =
        CallingCodecs.strings(
            value -> {
              if (value.equals("bad")) {
                throw new CodecException("cannot encode bad");
              }
            });
    try (Cache<String, String> cache =
        Cache.builder(Codecs.strings(), failing).storage(storage).maximumEntries(10).build()) {
      cache.put("k", "good");
      assertThrows(CodecException.class, () -> cache.put("k", "bad"));
      assertEquals("good", cache.getIfPresent("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void loaderRunsOnMissAndItsExceptionReachesTheCaller(Storage storage) {
    AtomicLong loads = new AtomicLong();
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .recordStats()
            .loader(
                k -> {
                  loads.incrementAndGet();
                  if (k < 0) {
                    throw new java.io.IOException("no negative keys");
                  }
                  return k == 0 ? null : "v" + k;
                })
            .build()) {
      assertEquals("v1", cache.get(1L));
      assertEquals("v1", cache.get(1L));
      assertEquals(1, loads.get());
      assertNull(cache.get(0L));
      assertFalse(cache.containsKey(0L));
      CacheLoadingException e = assertThrows(CacheLoadingException.class, () -> cache.get(-1L));
      assertEquals("no negative keys", e.getCause().getMessage());
      assertFalse(cache.containsKey(-1L));
      assertEquals(Map.of(1L, "v1", 2L, "v2"), cache.getAll(List.of(1L, 2L, 0L)));
      CacheStats stats = cache.stats();
      assertEquals(2, stats.loadSuccessCount(), "keys 1 and 2");
      assertEquals(3, stats.loadFailureCount(), "key 0 twice (null) and key -1 (threw)");
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void expireAfterWriteHonouredOnRead(Storage storage) {
    AtomicLong time = new AtomicLong(1_000);
    List<RemovalCause> causes = new CopyOnWriteArrayList<>();
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .ticker(time::get)
            .executor(Runnable::run)
            .removalListener((k, v, c) -> causes.add(c))
            .expireAfterWrite(Duration.ofNanos(100))
            .recordStats()
            .build()) {
      cache.put("k", "v");
      time.addAndGet(99);
      assertEquals("v", cache.getIfPresent("k"));
      time.addAndGet(1);
      assertNull(cache.getIfPresent("k"));
      assertEquals(1, cache.estimatedSize(), "reclaimed lazily");
      cache.cleanUp();
      assertEquals(0, cache.estimatedSize());
      assertEquals(List.of(RemovalCause.EXPIRED), causes);
      assertEquals(1, cache.stats().expirationCount());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @org.junit.jupiter.api.Timeout(30)
  void expiredEntriesAreReclaimedInTheBackground(Storage storage) throws InterruptedException {
    AtomicLong time = new AtomicLong(0);
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .storage(storage)
            .maximumEntries(10_000)
            .ticker(time::get)
            .expireAfterWrite(Duration.ofSeconds(1))
            .build()) {
      for (long i = 0; i < 5000; i++) {
        cache.put(i, "v" + i);
      }
      time.addAndGet(Duration.ofSeconds(2).toNanos());
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (cache.estimatedSize() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertEquals(0, cache.estimatedSize(), "no read or write needed to reclaim");
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void expireAfterAccessIsExtendedByReads(Storage storage) {
    AtomicLong time = new AtomicLong(0);
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .ticker(time::get)
            .expireAfterAccess(Duration.ofMillis(100))
            .build()) {
      cache.put("k", "v");
      for (int i = 0; i < 10; i++) {
        time.addAndGet(60_000_000);
        assertEquals("v", cache.getIfPresent("k"), "read " + i);
      }
      time.addAndGet(100_000_000);
      assertNull(cache.getIfPresent("k"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void removalListenerSeesCauses(Storage storage) {
    List<String> events = new CopyOnWriteArrayList<>();
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .storage(storage)
            .maximumEntries(2)
            .executor(Runnable::run)
            .removalListener((k, v, c) -> events.add(k + "=" + v + ":" + c))
            .build()) {
      cache.put(1L, "a");
      cache.put(1L, "b");
      cache.remove(1L);
      cache.put(2L, "c");
      cache.put(3L, "d");
      cache.put(4L, "e");
      assertEquals("1=a:REPLACED", events.get(0));
      assertEquals("1=b:EXPLICIT", events.get(1));
      assertEquals(3, events.size());
      assertTrue(events.get(2).endsWith(":SIZE"), events.toString());
      cache.invalidateAll();
      assertEquals(5, events.size());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void mapViewIteratesEveryEntryOnce(Storage storage) {
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class).storage(storage).unbounded().segments(4).build()) {
      Map<Long, Long> expected = new HashMap<>();
      for (long i = 0; i < 3000; i++) {
        cache.put(i, -i);
        expected.put(i, -i);
      }
      Map<Long, Long> seen = new HashMap<>();
      List<Long> order = new ArrayList<>();
      for (Map.Entry<Long, Long> e : cache.asMap().entrySet()) {
        order.add(e.getKey());
        seen.put(e.getKey(), e.getValue());
      }
      assertEquals(expected, seen);
      assertEquals(3000, order.size());
      assertEquals(expected, cache.asMap());
      assertEquals(-5L, cache.asMap().put(5L, 50L));
      assertEquals(50L, cache.asMap().get(5L));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void getWithFunctionReturnsPresentValueWithoutCalling(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      cache.put("k", "v");
      assertEquals(
          "v",
          cache.get(
              "k",
              k -> {
                throw new AssertionError("must not be called");
              }));
      assertEquals("K", cache.get("x", k -> "K"));
      assertEquals("K", cache.getIfPresent("x"));
      assertNull(cache.get("y", k -> null));
      assertFalse(cache.containsKey("y"));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void recursiveLoadOfTheSameKeyFailsInsteadOfHanging(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      assertThrows(
          IllegalStateException.class, () -> cache.get("k", k -> cache.get("k", k2 -> "inner")));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void statsCountHitsMissesAndLatency(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      cache.put("a", "1");
      cache.getIfPresent("a");
      cache.getIfPresent("b");
      CacheStats stats = cache.stats();
      assertEquals(1, stats.hitCount());
      assertEquals(1, stats.missCount());
      assertEquals(0.5, stats.hitRatio());
      assertEquals(1, stats.putCount());
      assertEquals(2, stats.getLatency().count());
      assertSame(LatencySummary.EMPTY, stats.loadLatency());
    }
  }

  /**
   * putCount counts values stored by put, replace, compute and loads; removalCount explicit
   * removals, compute's included. Writes that change nothing count nothing.
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  void statsCountEveryKindOfWriteOnce(Storage storage) {
    try (Cache<String, String> cache = strings(storage)) {
      cache.put("a", "1");
      cache.compute("a", (k, v) -> v + "x");
      cache.compute("b", (k, v) -> "new");
      cache.asMap().merge("a", "m", (x, y) -> x + y);
      cache.asMap().computeIfPresent("b", (k, v) -> v + "er");
      cache.replace("b", "newer", "newest");
      cache.replace("b", "no match", "ignored");
      cache.putIfAbsent("b", "ignored");
      cache.compute("absent", (k, v) -> null);
      assertEquals(6, cache.stats().putCount());
      cache.compute("a", (k, v) -> null);
      cache.asMap().computeIfPresent("b", (k, v) -> null);
      cache.remove("c");
      assertEquals(2, cache.stats().removalCount());
      cache.putAll(Map.of("x", "1", "y", "2", "z", "3"));
      cache.invalidateAll();
      cache.put("w", "4");
      cache.asMap().clear();
      assertEquals(6, cache.stats().removalCount(), "invalidateAll and clear count theirs");
    }
  }

  /** containsKey and walking the map views are not accesses: expiry and eviction ignore them. */
  @ParameterizedTest
  @EnumSource(Storage.class)
  void containsKeyAndIterationAreNotAccesses(Storage storage) {
    AtomicLong now = new AtomicLong();
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .storage(storage)
            .maximumEntries(100)
            .expireAfterAccess(Duration.ofSeconds(10))
            .ticker(now::get)
            .build()) {
      cache.put("walked", "1");
      cache.put("read", "2");
      for (int i = 0; i < 5; i++) {
        now.addAndGet(Duration.ofSeconds(4).toNanos());
        assertEquals(i < 2, cache.containsKey("walked"), "present until 10 s after its write");
        cache.asMap().forEach((k, v) -> {});
        assertEquals("2", cache.getIfPresent("read"));
      }
      assertFalse(cache.containsKey("walked"), "20 s without a read: expired");
      assertEquals("2", cache.getIfPresent("read"), "read every 4 s: alive");
    }
    // a hot set survives a scan whether or not every entry was walked first
    for (boolean walk : new boolean[] {false, true}) {
      try (Cache<Integer, Integer> cache =
          Cache.builder(Integer.class, Integer.class)
              .storage(storage)
              .maximumEntries(1_000)
              .build()) {
        for (int i = 0; i < 1_000; i++) {
          cache.put(i, i);
        }
        for (int round = 0; round < 5; round++) {
          for (int i = 0; i < 100; i++) {
            cache.getIfPresent(i);
          }
          if (walk) {
            cache.asMap().forEach((k, v) -> {});
            for (int i = 0; i < 1_000; i++) {
              cache.containsKey(i);
            }
          }
        }
        for (int i = 1_000; i < 3_000; i++) {
          cache.put(i, i);
        }
        int hot = 0;
        for (int i = 0; i < 100; i++) {
          hot += cache.containsKey(i) ? 1 : 0;
        }
        assertEquals(100, hot, "hot keys kept after the scan, walked first: " + walk);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void dictionaryIsCountedAndFitsInsideTheBound(Storage storage) {
    dev.larder.codec.ValueDictionary dictionary =
        dev.larder.codec.ValueDictionary.builder().maximumMemory(1 << 20).build();
    Codec<String> names =
        dictionary.substitute(
            "names", Codecs.strings(), dev.larder.codec.ValueDictionary.Mode.ALWAYS);
    long bound = 4L << 20;
    try (Cache<Long, String> cache =
        Cache.builder(Codecs.longs(), names)
            .storage(storage)
            .maximumMemory(bound)
            .dictionary(dictionary)
            .build()) {
      long before = cache.memoryUsed();
      for (long i = 0; i < 50_000; i++) {
        cache.put(i, "name-" + (i % 500));
        assertTrue(cache.memoryUsed() <= bound);
      }
      assertEquals(500, dictionary.size("names"));
      assertTrue(
          cache.memoryUsed() >= before + dictionary.memoryUsed() - (64 << 10),
          "dictionary counted");
      assertEquals("name-7", cache.getIfPresent(49_507L));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void boundIsRequiredAndTypesWithoutCodecAreNamed(Storage storage) {
    assertThrows(
        IllegalStateException.class,
        () -> Cache.builder(String.class, String.class).storage(storage).build());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Cache.builder(Thread.class, String.class));
    assertTrue(e.getMessage().contains("java.lang.Thread"), e.getMessage());
  }
}
