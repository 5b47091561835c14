package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.internal.LarderCache;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hot tier: decoded values of the most read entries, shared by every reader, for immutable key
 * and value types only, removed or replaced by every change to their entries, and counted in the
 * cache's memory.
 */
class HotTierTest {

  /** An immutable value type: a record of immutable components. */
  record Price(String sku, BigDecimal amount, Instant at, UUID id) {}

  /** A record holding a list: the derived list codec decodes a modifiable list. */
  record Basket(String owner, List<String> items) {}

  @ParameterizedTest
  @EnumSource(Storage.class)
  void aHotKeyReturnsTheSameInstanceToEveryRead(Storage storage) {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).storage(storage).maximumEntries(1_000).build()) {
      cache.put("k", "v".repeat(100));
      String hot = readUntilHot(cache, "k");
      for (int i = 0; i < 10; i++) {
        assertSame(hot, cache.getIfPresent("k"));
      }
      assertEquals("v".repeat(100), hot);
    }
  }

  @Test
  void recordsOfImmutableComponentsEnterAndRecordsOfListsDoNot() {
    Codec<Price> prices = Codecs.record(Price.class);
    assertTrue(prices.immutable());
    assertFalse(Codecs.record(Basket.class).immutable());
    try (Cache<Long, Price> cache =
        Cache.builder(Long.class, Price.class).maximumEntries(100).build()) {
      Price p = new Price("a", new BigDecimal("1.50"), Instant.ofEpochSecond(7), new UUID(1, 2));
      cache.put(1L, p);
      assertEquals(p, readUntilHot(cache, 1L));
    }
    try (Cache<Long, Basket> cache =
        Cache.builder(Long.class, Basket.class).maximumEntries(100).build()) {
      cache.put(1L, new Basket("o", List.of("x")));
      for (int i = 0; i < 20; i++) {
        assertNotSame(cache.getIfPresent(1L), cache.getIfPresent(1L));
      }
      assertEquals(0, tierSize(cache));
    }
  }

  @Test
  void mutableValuesNeverEnterAndAskingForATierForThemIsRefused() {
    try (Cache<String, byte[]> cache =
        Cache.builder(String.class, byte[].class).maximumEntries(100).build()) {
      cache.put("k", new byte[] {1, 2});
      for (int i = 0; i < 20; i++) {
        assertNotSame(cache.getIfPresent("k"), cache.getIfPresent("k"));
      }
      assertEquals(0, tierSize(cache));
    }
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                Cache.builder(String.class, byte[].class)
                    .maximumEntries(100)
                    .hotTier(1 << 20)
                    .build());
    assertTrue(e.getMessage().contains("byte"), e.getMessage());
    assertThrows(
        IllegalStateException.class,
        () ->
            Cache.builder(Double.class, String.class)
                .maximumEntries(100)
                .hotTierShare(0.5)
                .build());
    assertThrows(
        IllegalStateException.class,
        () ->
            Cache.builder(Long.class, String.class)
                .maximumEntries(100)
                .expireAfterAccess(Duration.ofMinutes(1))
                .hotTier(1 << 20)
                .build());
  }

  @Test
  void hotTierZeroTurnsItOff() {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumEntries(100).hotTier(0).build()) {
      cache.put("k", "v");
      for (int i = 0; i < 50; i++) {
        assertNotSame(cache.getIfPresent("k"), cache.getIfPresent("k"));
      }
      assertEquals(0, tierSize(cache));
    }
  }

  @Test
  void aWriteReplacesTheHotValueAndRemovalsTakeItOut() {
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumEntries(1_000).build()) {
      cache.put("k", "one");
      readUntilHot(cache, "k");
      String two = new String("two");
      cache.put("k", two);
      // still hot: the write put the caller's (immutable) instance in place of the old one
      assertSame(two, cache.getIfPresent("k"));
      assertEquals(1, tierSize(cache));
      cache.putIfAbsent("k", "ignored");
      assertSame(two, cache.getIfPresent("k"));
      assertEquals("two", cache.replace("k", "three"));
      assertEquals("three", cache.getIfPresent("k"));
      readUntilHot(cache, "k");
      cache.invalidate("k");
      assertNull(cache.getIfPresent("k"));
      cache.put("k", "four");
      readUntilHot(cache, "k");
      assertEquals("four", cache.remove("k"));
      assertNull(cache.getIfPresent("k"));
      cache.put("k", "five");
      readUntilHot(cache, "k");
      cache.compute("k", (k, v) -> v + "!");
      assertEquals("five!", cache.getIfPresent("k"));
      readUntilHot(cache, "k");
      cache.invalidateAll();
      assertNull(cache.getIfPresent("k"));
      assertEquals(0, tierSize(cache));
    }
  }

  @Test
  void expiredEntriesAreNotReadFromTheTier() {
    AtomicLong now = new AtomicLong();
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .maximumEntries(100)
            .expireAfterWrite(Duration.ofSeconds(10))
            .ticker(now::get)
            .build()) {
      cache.put("k", "v");
      readUntilHot(cache, "k");
      now.addAndGet(Duration.ofSeconds(9).toNanos());
      assertEquals("v", cache.getIfPresent("k"));
      now.addAndGet(Duration.ofSeconds(1).toNanos());
      assertNull(cache.getIfPresent("k"));
    }
  }

  @Test
  void evictedEntriesLeaveTheTier() {
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .maximumEntries(64)
            .segments(1)
            .hotTierShare(0.5)
            .build()) {
      for (long k = 0; k < 32; k++) {
        cache.put(k, "v" + k);
        readUntilHot(cache, k);
      }
      // newer keys, read more often than the first ever were: the first are evicted
      for (int round = 0; round < 20; round++) {
        for (long k = 1_000; k < 1_100; k++) {
          if (cache.getIfPresent(k) == null) {
            cache.put(k, "w" + k);
          }
          cache.getIfPresent(k);
          cache.getIfPresent(k);
        }
      }
      long present = 0;
      for (long k = 0; k < 32; k++) {
        String v = cache.getIfPresent(k);
        if (v != null) {
          assertEquals("v" + k, v);
          present++;
        }
      }
      // only the first keys were read, so every hot entry must be one of theirs still present
      assertTrue(tierSize(cache) <= present, "tier " + tierSize(cache) + ", present " + present);
      assertTrue(present < 32, "nothing was evicted");
      assertTrue(cache.estimatedSize() <= 64);
    }
  }

  @Test
  void theTierCountsInMemoryAndComesOutOfTheBound() {
    long bound = 8L << 20;
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class).maximumMemory(bound).build()) {
      assertEquals(bound, cache.maximumMemory().orElseThrow());
      for (long k = 0; k < 2_000; k++) {
        cache.put(k, "x".repeat(1_000));
      }
      long before = cache.memoryUsed();
      for (int round = 0; round < 5; round++) {
        for (long k = 0; k < 200; k++) {
          cache.getIfPresent(k);
        }
      }
      long tier = ((LarderCache<Long, String>) cache).hotTierBytes();
      assertTrue(tier > 100 * 1_000, "tier bytes " + tier);
      // compared as longs: assertEquals with a delta would compare them as floats
      long expected = before + tier;
      assertTrue(
          Math.abs(expected - cache.memoryUsed()) <= 64 * 1024,
          cache.memoryUsed() + " bytes used, " + expected + " expected within 64 KiB");
      assertTrue(tier <= bound / 10, tier + " over a tenth of " + bound);
      // fill far past the bound: the store and the tier together stay under it
      for (long k = 2_000; k < 40_000; k++) {
        cache.put(k, "y".repeat(1_000));
        if (k % 1_000 == 0) {
          for (long r = k - 100; r < k; r++) {
            cache.getIfPresent(r);
            cache.getIfPresent(r);
          }
          assertTrue(cache.memoryUsed() <= bound, cache.memoryUsed() + " > " + bound);
        }
      }
    }
  }

  @Test
  void theTierHoldsAtMostItsShareOfAnEntryBound() {
    try (Cache<Long, Long> cache =
        Cache.builder(Long.class, Long.class).maximumEntries(20_000).build()) {
      for (long k = 0; k < 10_000; k++) {
        cache.put(k, k * 1_000);
      }
      for (int round = 0; round < 6; round++) {
        for (long k = 0; k < 10_000; k++) {
          assertEquals(k * 1_000, cache.getIfPresent(k));
        }
      }
      long size = tierSize(cache);
      // a tenth of the bound, split among the segments (rounded up)
      assertTrue(size > 1_000 && size <= 2_000 + 16, "tier entries " + size);
    }
  }

  /** Every way of writing or removing a key, each applied to a key whose value is hot. */
  // its functions are stateless lambdas
  @SuppressWarnings("ImmutableEnumChecker")
  enum Change {
    PUT(c -> c.put("k", "new"), "new"),
    PUT_ALL(c -> c.putAll(java.util.Map.of("k", "new", "other", "x")), "new"),
    REPLACE(c -> c.replace("k", "new"), "new"),
    REPLACE_IF_EQUAL(c -> c.replace("k", "old", "new"), "new"),
    COMPUTE(c -> c.compute("k", (k, v) -> v + "+"), "old+"),
    COMPUTE_TO_NULL(c -> c.compute("k", (k, v) -> null), null),
    REMOVE(c -> c.remove("k"), null),
    REMOVE_IF_EQUAL(c -> c.remove("k", "old"), null),
    INVALIDATE(c -> c.invalidate("k"), null),
    INVALIDATE_KEYS(c -> c.invalidateAll(List.of("k")), null),
    INVALIDATE_ALL(Cache::invalidateAll, null),
    MAP_PUT(c -> c.asMap().put("k", "new"), "new"),
    MAP_MERGE(c -> c.asMap().merge("k", "+", String::concat), "old+"),
    MAP_COMPUTE_IF_PRESENT(c -> c.asMap().computeIfPresent("k", (k, v) -> "new"), "new"),
    MAP_REPLACE_ALL(c -> c.asMap().replaceAll((k, v) -> v + "+"), "old+"),
    MAP_REMOVE(c -> c.asMap().remove("k"), null),
    MAP_KEY_SET_REMOVE(c -> c.asMap().keySet().remove("k"), null),
    MAP_ENTRIES_REMOVE_IF(c -> c.asMap().entrySet().removeIf(e -> e.getKey().equals("k")), null),
    MAP_VALUES_REMOVE_IF(c -> c.asMap().values().removeIf(v -> v.equals("old")), null),
    MAP_CLEAR(c -> c.asMap().clear(), null);

    final java.util.function.Consumer<Cache<String, String>> apply;
    final String expected;

    Change(java.util.function.Consumer<Cache<String, String>> apply, String expected) {
      this.apply = apply;
      this.expected = expected;
    }
  }

  /**
   * After any change of a hot key, the next read returns what the change left, from whichever tier
   * has it; the old hot instance is never returned again.
   */
  @ParameterizedTest
  @EnumSource(Change.class)
  void everyChangeOfAHotKeyIsSeenByTheNextRead(Change change) {
    for (Storage storage : Storage.values()) {
      try (Cache<String, String> cache =
          Cache.builder(String.class, String.class)
              .storage(storage)
              .maximumEntries(1_000)
              .build()) {
        cache.put("k", new String("old"));
        String hot = readUntilHot(cache, "k");
        assertEquals(1, tierSize(cache));
        change.apply.accept(cache);
        for (int i = 0; i < 3; i++) {
          String read = cache.getIfPresent("k");
          assertEquals(change.expected, read, change + " on " + storage);
          if (read != null) {
            assertNotSame(hot, read, change + " on " + storage + ": the old hot instance");
          }
        }
      }
    }
  }

  @Test
  void expiredEntriesLeaveTheTierWhenSwept() {
    AtomicLong now = new AtomicLong();
    try (Cache<String, String> cache =
        Cache.builder(String.class, String.class)
            .maximumEntries(100)
            .expireAfterWrite(Duration.ofSeconds(10))
            .ticker(now::get)
            .build()) {
      cache.put("k", "v".repeat(1_000));
      readUntilHot(cache, "k");
      long hotBytes = ((LarderCache<String, String>) cache).hotTierBytes();
      assertTrue(hotBytes > 1_000, "tier bytes " + hotBytes);
      long before = cache.memoryUsed();
      now.addAndGet(Duration.ofSeconds(11).toNanos());
      cache.cleanUp();
      assertEquals(0, tierSize(cache));
      // what stays counted is the emptied shard's own object and index array
      long left = ((LarderCache<String, String>) cache).hotTierBytes();
      assertTrue(left < 256, left + " B left in the tier");
      assertTrue(
          cache.memoryUsed() <= before - (hotBytes - left),
          cache.memoryUsed() + " after expiry, " + before + " before");
    }
  }

  @Test
  void closeEmptiesTheTierAndReadsAfterItAreRefused() {
    Cache<String, String> cache =
        Cache.builder(String.class, String.class).maximumEntries(100).build();
    cache.put("k", "v");
    readUntilHot(cache, "k");
    assertEquals(1, tierSize(cache));
    cache.close();
    assertThrows(IllegalStateException.class, () -> cache.getIfPresent("k"));
    assertEquals(0, tierSize(cache));
  }

  @Test
  void aKeyWrittenTwiceThenReadBecomesHot() {
    for (long bound : new long[] {100, 10_000}) {
      try (Cache<Long, String> cache =
          Cache.builder(Long.class, String.class).maximumEntries(bound).hotTierShare(0.5).build()) {
        cache.put(0L, "a");
        cache.put(0L, "b");
        assertEquals("b", readUntilHot(cache, 0L), "bound " + bound);
      }
    }
  }

  @Test
  void byteArraysStayCopies() {
    try (Cache<String, byte[]> cache =
        Cache.builder(String.class, byte[].class).maximumEntries(10).build()) {
      cache.put("k", new byte[] {1});
      byte[] a = cache.getIfPresent("k");
      a[0] = 9;
      assertArrayEquals(new byte[] {1}, cache.getIfPresent("k"));
    }
  }

  /**
   * When the keys read most change, the new ones take the tier from the old. The old keys' counts
   * in the sketch saturate while they are hot, so the first new key offered loses to one of them
   * and the refusal raises the tier's bar above any count a key can have: the bar must fade as the
   * sketch ages the counts it came from, or the tier takes no key again (it only shrinks as the old
   * keys leave the store).
   */
  @Test
  @SuppressWarnings("ReferenceEquality") // one instance twice running means the hot tier served it
  void theTierFollowsTheKeysReadMostWhenTheyChange() {
    try (Cache<Long, String> cache =
        Cache.builder(Long.class, String.class)
            .maximumEntries(1_000)
            .segments(1)
            .hotTierShare(0.1)
            .build()) {
      long cold = 0;
      for (long from : new long[] {0, 100}) {
        // 100 keys read most (the tier's size), among reads of 5,000 others that keep the store
        // evicting and the sketch aging
        for (int round = 0; round < 400; round++) {
          for (long k = from; k < from + 100; k++) {
            readOrPut(cache, k);
          }
          for (int c = 0; c < 100; c++, cold++) {
            readOrPut(cache, 10_000 + cold % 5_000);
          }
        }
        int hot = 0;
        for (long k = from; k < from + 100; k++) {
          String first = cache.getIfPresent(k);
          if (first != null && first == cache.getIfPresent(k)) {
            hot++;
          }
        }
        assertTrue(hot >= 90, hot + " of the 100 keys read most from " + from + " are hot");
      }
    }
  }

  private static void readOrPut(Cache<Long, String> cache, long key) {
    if (cache.getIfPresent(key) == null) {
      cache.put(key, "v" + key);
    }
  }

  /** Reads until the tier holds the key (the same instance twice running), at most 100 times. */
  @SuppressWarnings("ReferenceEquality") // one instance twice running means the hot tier served it
  static <K, V> V readUntilHot(Cache<K, V> cache, K key) {
    V last = cache.getIfPresent(key);
    for (int i = 0; i < 100; i++) {
      V next = cache.getIfPresent(key);
      if (next == last && next != null) {
        return next;
      }
      last = next;
    }
    throw new AssertionError(key + " did not become hot");
  }

  static long tierSize(Cache<?, ?> cache) {
    return ((LarderCache<?, ?>) cache).hotTierSize();
  }
}
