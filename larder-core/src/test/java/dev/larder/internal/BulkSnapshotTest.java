package dev.larder.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import dev.larder.internal.bulk.BulkSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The byte store's snapshot walk ({@link BulkSnapshot}, a server's checkpoint): every key present
 * throughout is handed over with a value it held during the walk, while writers overwrite, add and
 * remove keys (so that entries are relocated by compaction and indexes rebuilt under the walk).
 */
class BulkSnapshotTest {

  @Test
  void aQuietCacheHandsOverEveryEntryOnceWithItsValue() {
    try (Cache<byte[], byte[]> cache =
        Cache.builder(Codecs.bytes(), Codecs.bytes()).unbounded().build()) {
      for (int i = 0; i < 20_000; i++) {
        cache.put(bytes("k" + i), bytes("v" + i + "-".repeat(i % 50)));
      }
      Map<String, List<String>> seen = walk(cache);
      assertEquals(20_000, seen.size());
      for (int i = 0; i < 20_000; i++) {
        assertEquals(List.of("v" + i + "-".repeat(i % 50)), seen.get("k" + i), "k" + i);
      }
    }
  }

  @Test
  void anUnusedCacheHandsOverNothingAndAClosedOneRefuses() {
    Cache<byte[], byte[]> cache = Cache.builder(Codecs.bytes(), Codecs.bytes()).unbounded().build();
    assertTrue(walk(cache).isEmpty());
    cache.put(bytes("k"), bytes("v"));
    cache.close();
    assertThrows(IllegalStateException.class, () -> walk(cache));
  }

  @Test
  void expiredEntriesAreLeftOut() {
    AtomicLong nanos = new AtomicLong();
    try (Cache<byte[], byte[]> cache =
        Cache.builder(Codecs.bytes(), Codecs.bytes())
            .unbounded()
            .expireAfterWrite(Duration.ofSeconds(10))
            .ticker(nanos::get)
            .build()) {
      cache.put(bytes("old"), bytes("1"));
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(6));
      cache.put(bytes("new"), bytes("2"));
      nanos.addAndGet(TimeUnit.SECONDS.toNanos(6));
      assertEquals(Map.of("new", List.of("2")), walk(cache));
    }
  }

  /**
   * Stable keys are never written during the walks, but eviction and compaction move them (they
   * share pages with churned keys, which writers overwrite with values naming themselves, in a
   * cache bounded below what the writes need); transient keys come and go (tombstones, index
   * rebuilds). Each walk must hand over every stable key the cache did not evict with its value,
   * and no key with another's value or torn bytes. Checked once the writers have stopped, when
   * every eviction has been heard of.
   */
  @Test
  @Timeout(120)
  void everyKeyPresentThroughoutIsHandedOverWithAValueItHeldWhileWritersRun() throws Exception {
    int stable = 20_000;
    int churned = stable / 10;
    Set<String> evicted = ConcurrentHashMap.newKeySet();
    try (Cache<byte[], byte[]> cache =
        Cache.builder(Codecs.bytes(), Codecs.bytes())
            .maximumMemory(1L << 20)
            .executor(Runnable::run)
            .evictionListener((k, v, cause) -> evicted.add(new String(k, StandardCharsets.UTF_8)))
            .build()) {
      for (int i = 0; i < stable; i++) {
        cache.put(bytes("s" + i), bytes("stable" + i));
        if (i % 10 == 0) {
          cache.put(bytes("c" + i / 10), bytes("c" + i / 10 + ":0"));
        }
      }
      AtomicBoolean done = new AtomicBoolean();
      ExecutorService writers = Executors.newFixedThreadPool(2);
      List<Map<String, List<String>>> walks = new ArrayList<>();
      try {
        List<Future<Long>> running = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
          int seed = w;
          running.add(writers.submit(() -> write(cache, seed, churned, done)));
        }
        for (int walk = 0; walk < 8; walk++) {
          walks.add(walk(cache));
        }
        done.set(true);
        long writes = 0;
        for (Future<Long> f : running) {
          writes += f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(writes > 0, "the writers wrote nothing");
      } finally {
        done.set(true);
        writers.shutdownNow();
        assertTrue(writers.awaitTermination(60, TimeUnit.SECONDS), "writers still running");
      }
      assertTrue(evicted.size() > 0, "nothing was evicted: the walks were not tested against it");
      for (int walk = 0; walk < walks.size(); walk++) {
        check(walks.get(walk), walk, stable, evicted);
      }
    }
  }

  private static void check(
      Map<String, List<String>> seen, int walk, int stable, Set<String> evicted) {
    for (int i = 0; i < stable; i++) {
      List<String> values = seen.get("s" + i);
      assertTrue(values != null || evicted.contains("s" + i), "walk " + walk + " missed s" + i);
    }
    for (Map.Entry<String, List<String>> e : seen.entrySet()) {
      String key = e.getKey();
      for (String v : e.getValue()) {
        assertTrue(
            key.startsWith("s") ? v.equals("stable" + key.substring(1)) : v.startsWith(key + ":"),
            "walk " + walk + ": " + key + " = " + v);
      }
    }
  }

  /** Overwrites churned keys and adds and removes transient ones until told to stop. */
  private static long write(
      Cache<byte[], byte[]> cache, int seed, int churned, AtomicBoolean done) {
    SplittableRandom random = new SplittableRandom(seed);
    long n = 0;
    while (!done.get()) {
      int i = random.nextInt(churned);
      cache.put(bytes("c" + i), bytes("c" + i + ":" + n + "-".repeat(random.nextInt(200))));
      String t = "t" + seed + "." + random.nextInt(5_000);
      if (random.nextBoolean()) {
        cache.put(bytes(t), bytes(t + ":" + n));
      } else {
        cache.invalidate(bytes(t));
      }
      n++;
    }
    return n;
  }

  private static Map<String, List<String>> walk(Cache<byte[], byte[]> cache) {
    Map<String, List<String>> seen = new HashMap<>();
    ((BulkSnapshot) cache)
        .forEachEncoded(
            (entry, keyLength, valueLength) ->
                seen.computeIfAbsent(
                        new String(entry, 0, keyLength, StandardCharsets.UTF_8),
                        k -> new ArrayList<>())
                    .add(new String(entry, keyLength, valueLength, StandardCharsets.UTF_8)));
    return seen;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
