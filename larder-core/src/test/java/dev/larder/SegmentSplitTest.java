package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.testing.Workers;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cache whose bound calls for several segments starts with one and splits it into all of them
 * once it holds 1 MiB or 4096 entries (SegmentTable, Segment.splitInto). The split must be
 * invisible: every entry keeps its value and deadline, nothing is reported removed, iteration that
 * straddles it misses no key, and under concurrent writers and lock-free readers no write is lost
 * and no read is torn, stale after a newer one, or of another key.
 */
class SegmentSplitTest {

  private static final long GIB = 1L << 30;

  /** Entries of about 170 B: enough of them to pass the 1 MiB split point. */
  private static final int PAST_SPLIT = 8_000;

  @ParameterizedTest
  @EnumSource(Storage.class)
  void entriesKeepTheirValuesAndDeadlines(Storage storage) {
    AtomicLong now = new AtomicLong(1);
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(GIB)
            .expireAfterWrite(Duration.ofSeconds(10))
            .ticker(now::get)
            .build()) {
      for (long key = 0; key < 100; key++) {
        cache.put(key, value(key, 1));
      }
      now.addAndGet(Duration.ofSeconds(5).toNanos());
      for (long key = 100; key < PAST_SPLIT; key++) {
        cache.put(key, value(key, 1));
      }
      for (long key = 0; key < PAST_SPLIT; key++) {
        assertArrayEquals(value(key, 1), cache.getIfPresent(key), "key " + key);
      }
      // Written at 0 s: gone at 11 s, as their deadline said, though the split rewrote them.
      now.addAndGet(Duration.ofSeconds(6).toNanos());
      for (long key = 0; key < 100; key++) {
        assertNull(cache.getIfPresent(key), "key " + key + " outlived its deadline");
      }
      assertNotNull(cache.getIfPresent(100L));
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void theSplitReportsNothingRemoved(Storage storage) {
    AtomicInteger notices = new AtomicInteger();
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes())
            .storage(storage)
            .maximumMemory(GIB)
            .executor(Runnable::run)
            .recordStats()
            .removalListener((k, v, cause) -> notices.incrementAndGet())
            .build()) {
      for (long key = 0; key < PAST_SPLIT; key++) {
        cache.put(key, value(key, 1));
      }
      assertEquals(0, notices.get());
      assertEquals(0, cache.stats().evictionCount());
      assertEquals(PAST_SPLIT, cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void anEntryLargerThanTheSplitPointSplitsAnEmptyCache(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build()) {
      byte[] large = new byte[3 << 20];
      large[12345] = 7;
      cache.put(1L, large);
      assertArrayEquals(large, cache.getIfPresent(1L));
      cache.put(2L, value(2, 1));
      assertEquals(2, cache.estimatedSize());
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void iterationThatStraddlesTheSplitMissesNoKey(Storage storage) {
    try (Cache<Long, byte[]> cache =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build()) {
      for (long key = 0; key < 100; key++) {
        cache.put(key, value(key, 1));
      }
      Iterator<Long> keys = cache.asMap().keySet().iterator();
      List<Long> seen = new ArrayList<>();
      seen.add(keys.next());
      for (long key = 100; key < PAST_SPLIT; key++) {
        cache.put(key, value(key, 1));
      }
      keys.forEachRemaining(seen::add);
      Set<Long> distinct = new HashSet<>(seen);
      for (long key = 0; key < 100; key++) {
        assertTrue(distinct.contains(key), "iteration missed key " + key);
      }
      assertEquals(distinct.size(), seen.size(), "iteration returned a key twice");
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void closesBeforeAndAfterTheSplit(Storage storage) {
    Cache<Long, byte[]> small =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build();
    small.put(1L, value(1, 1));
    small.close();
    assertThrows(IllegalStateException.class, () -> small.getIfPresent(1L));
    Cache<Long, byte[]> split =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(GIB).build();
    for (long key = 0; key < PAST_SPLIT; key++) {
      split.put(key, value(key, 1));
    }
    split.close();
    assertThrows(IllegalStateException.class, () -> split.put(1L, value(1, 2)));
  }

  /**
   * Writers own disjoint keys and write each in rising versions while readers check every value
   * they get; the cache splits while they run, each round afresh. No write may be lost (each key
   * ends at its last version), and no read torn, foreign or older than one the same reader saw
   * before.
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void noLostWriteOrBadReadWhileSplitting(Storage storage) throws Exception {
    for (int round = 0; round < 6; round++) {
      try (Cache<Long, byte[]> cache =
          Cache.builder(Codecs.longs(), Codecs.bytes())
              .storage(storage)
              .maximumMemory(GIB)
              .build()) {
        runRound(cache);
      }
    }
  }

  /**
   * Readers of keys present since before the split never miss them across it. A reader that checked
   * the first segment was open, then read the empty table the split leaves it, took the empty table
   * for a miss (CI's flake hunt saw "key 5392 vanished after version 1" in {@link
   * #noLostWriteOrBadReadWhileSplitting}); this test aims at that moment: readers spin on present
   * keys while one write triggers the split, in many small rounds. They also read the size, which
   * summed the retired first segment's zero for an instant (reported as a non-positive "key").
   */
  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void presentKeysNeverMissAcrossTheSplit(Storage storage) throws Exception {
    int present = 4_000; // below the split point of 4,096 entries
    long deadline = System.nanoTime() + 3_000_000_000L;
    int rounds = 0;
    while (rounds < 20 || System.nanoTime() < deadline) {
      rounds++;
      try (Cache<Long, byte[]> cache =
          Cache.builder(Codecs.longs(), Codecs.bytes())
              .storage(storage)
              .maximumMemory(GIB)
              .build()) {
        for (long key = 0; key < present; key++) {
          cache.put(key, value(key, 1));
        }
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicInteger started = new AtomicInteger();
        ConcurrentLinkedQueue<Long> missed = new ConcurrentLinkedQueue<>();
        try (Workers readers = Workers.named("reader")) {
          readers.start(
              2,
              r -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                started.incrementAndGet();
                while (reading.get()) {
                  long key = random.nextInt(present);
                  if (cache.getIfPresent(key) == null) {
                    missed.add(key);
                  }
                  long size = cache.estimatedSize();
                  if (size < present) {
                    missed.add(-size); // the size as a non-positive number
                  }
                }
              });
          while (started.get() < 2 && !readers.failed()) {
            Thread.onSpinWait();
          }
          for (long key = present; key < PAST_SPLIT; key++) {
            cache.put(key, value(key, 1));
          }
          reading.set(false);
          readers.join(Duration.ofSeconds(60));
        }
        assertTrue(
            missed.isEmpty(),
            "round "
                + rounds
                + ": present keys missed (sizes as"
                + " non-positive numbers) "
                + missed);
      }
    }
  }

  private static void runRound(Cache<Long, byte[]> cache) throws InterruptedException {
    int writers = 2;
    int keysEach = PAST_SPLIT / writers;
    int versions = 3;
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int owner = w;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      for (int version = 1; version <= versions; version++) {
                        for (long i = 0; i < keysEach; i++) {
                          long key = i * writers + owner;
                          cache.put(key, value(key, version));
                        }
                      }
                    } catch (Throwable t) {
                      failures.add(t);
                    }
                  }));
    }
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      readers.add(Thread.ofPlatform().start(() -> read(cache, writing, failures)));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    writing.set(false);
    for (Thread reader : readers) {
      reader.join();
    }
    assertTrue(failures.isEmpty(), () -> "failures: " + failures);
    for (long key = 0; key < (long) keysEach * writers; key++) {
      assertArrayEquals(value(key, versions), cache.getIfPresent(key), "key " + key);
    }
    assertEquals((long) keysEach * writers, cache.estimatedSize());
  }

  private static void read(
      Cache<Long, byte[]> cache, AtomicBoolean writing, ConcurrentLinkedQueue<Throwable> failures) {
    int[] newest = new int[PAST_SPLIT];
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      while (writing.get()) {
        long key = random.nextInt(PAST_SPLIT);
        byte[] got = cache.getIfPresent(key);
        if (got == null) {
          if (newest[(int) key] > 0) {
            failures.add(
                new AssertionError("key " + key + " vanished after version " + newest[(int) key]));
            return;
          }
          continue;
        }
        int version = ByteBuffer.wrap(got).getInt(8);
        if (!java.util.Arrays.equals(got, value(key, version))) {
          failures.add(new AssertionError("torn or foreign value for key " + key));
          return;
        }
        if (version < newest[(int) key]) {
          failures.add(
              new AssertionError(
                  "key "
                      + key
                      + " went back from version "
                      + newest[(int) key]
                      + " to "
                      + version));
          return;
        }
        newest[(int) key] = version;
      }
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  /** 150 B to 190 B naming their key and version, filled with a pattern of both. */
  static byte[] value(long key, int version) {
    ByteBuffer buffer = ByteBuffer.allocate(150 + (int) (key % 41));
    buffer.putLong(key).putInt(version);
    while (buffer.hasRemaining()) {
      buffer.put((byte) (key * 31 + version * 17L + buffer.position()));
    }
    return buffer.array();
  }
}
