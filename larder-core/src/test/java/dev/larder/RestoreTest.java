package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.Codecs;
import dev.larder.internal.bulk.BulkRestore;
import dev.larder.internal.bulk.EncodedEntries;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BulkRestore#restore}, the bulk path of the caches the builder makes: the cache it leaves
 * is the one puts of the same entries leave (contents, size, memory), listeners hear what such puts
 * would make them hear, statistics record no puts, and readers running beside it see each entry
 * whole or not at all.
 */
class RestoreTest {

  private static byte[] key(long i) {
    ByteSink sink = new ByteSink();
    Codecs.longs().encodeLast(i, sink);
    return sink.toByteArray();
  }

  private static byte[] value(long i, int length) {
    byte[] value = new byte[length];
    for (int b = 0; b < length; b++) {
      value[b] = (byte) (i * 31 + b);
    }
    return value;
  }

  private static EncodedEntries batch(long from, long to, int length) {
    EncodedEntries entries = new EncodedEntries(16, 1024);
    for (long i = from; i < to; i++) {
      entries.add(key(i), value(i, length));
    }
    return entries;
  }

  /** The bulk path of a cache the builder made (every such cache has one). */
  private static void restore(Cache<Long, byte[]> cache, EncodedEntries entries) {
    ((BulkRestore) cache).restore(entries);
  }

  private static CacheBuilder<Long, byte[]> builder() {
    return Cache.builder(Codecs.longs(), Codecs.bytes()).executor(Runnable::run);
  }

  @Test
  void aRestoredCacheIsWhatPutsLeave() {
    int n = 30_000;
    try (Cache<Long, byte[]> put = builder().maximumMemory(64L << 20).build();
        Cache<Long, byte[]> restored = builder().maximumMemory(64L << 20).build()) {
      for (long i = 0; i < n; i++) {
        put.put(i, value(i, 100));
      }
      for (long from = 0; from < n; from += 600) {
        restore(restored, batch(from, Math.min(n, from + 600), 100));
      }
      assertEquals(put.estimatedSize(), restored.estimatedSize());
      assertEquals(put.memoryUsed(), restored.memoryUsed());
      for (long i = 0; i < n; i++) {
        assertArrayEquals(value(i, 100), restored.getIfPresent(i), "key " + i);
      }
    }
  }

  @Test
  void aPresizedCacheTakesTheRestoreAsAPresizedOneTakesPuts() {
    int n = 30_000;
    try (Cache<Long, byte[]> put = builder().maximumMemory(64L << 20).initialCapacity(n).build();
        Cache<Long, byte[]> restored =
            builder().maximumMemory(64L << 20).initialCapacity(n).build()) {
      for (long i = 0; i < n; i++) {
        put.put(i, value(i, 100));
      }
      restore(restored, batch(0, n, 100));
      assertEquals(put.estimatedSize(), restored.estimatedSize());
      assertEquals(put.memoryUsed(), restored.memoryUsed());
    }
  }

  @Test
  void listenersHearWhatPutsWouldMakeThemHear() {
    List<String> heard = new ArrayList<>();
    AtomicLong evicted = new AtomicLong();
    try (Cache<Long, byte[]> cache =
        builder()
            .maximumMemory(1L << 20)
            .removalListener((k, v, cause) -> heard.add(k + " " + cause))
            .evictionListener((k, v, cause) -> evicted.incrementAndGet())
            .build()) {
      cache.put(3L, value(3, 10));
      EncodedEntries entries = batch(0, 5, 10);
      entries.add(key(4), value(4, 20)); // a second value of a key of the same batch
      restore(cache, entries);
      assertEquals(java.util.Set.of("3 REPLACED", "4 REPLACED"), java.util.Set.copyOf(heard));
      assertEquals(2, heard.size());
      assertArrayEquals(value(4, 20), cache.getIfPresent(4L));
      assertEquals(0, evicted.get());

      restore(cache, batch(100, 20_000, 100)); // about 2.5 MB into 1 MiB
      assertTrue(cache.memoryUsed() <= 1L << 20, "memory " + cache.memoryUsed());
      assertTrue(evicted.get() > 0, "nothing evicted");
      assertEquals(
          20_000 - 100 + 5 - cache.estimatedSize(),
          evicted.get(),
          "every key restored is held or was evicted");
    }
  }

  @Test
  void statisticsRecordNoPuts() {
    try (Cache<Long, byte[]> cache = builder().maximumMemory(16L << 20).recordStats().build()) {
      restore(cache, batch(0, 1000, 10));
      CacheStats stats = cache.stats();
      assertEquals(0, stats.putCount());
      assertEquals(0, stats.requestCount());
      assertEquals(1000, cache.estimatedSize());
    }
  }

  @Test
  void anEntryThatCanNeverFitIsRefused() {
    try (Cache<Long, byte[]> cache = builder().maximumMemory(64L << 10).build()) {
      EncodedEntries entries = batch(0, 1, 10);
      entries.add(key(1), new byte[1 << 20]);
      assertThrows(IllegalArgumentException.class, () -> restore(cache, entries));
      assertNull(cache.getIfPresent(1L));
    }
  }

  @Test
  @Timeout(60)
  void readersSeeEachEntryWholeOrNotAtAll() throws Exception {
    int n = 30_000;
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService readers = Executors.newFixedThreadPool(2);
    try (Cache<Long, byte[]> cache = builder().maximumMemory(256L << 20).build()) {
      List<Future<Long>> seen = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        Random random = new Random(t);
        seen.add(
            readers.submit(
                () -> {
                  long found = 0;
                  while (!done.get()) {
                    long i = random.nextInt(n);
                    byte[] v = cache.getIfPresent(i);
                    if (v != null) {
                      assertArrayEquals(value(i, 100 + (int) (i % 50)), v, "key " + i);
                      found++;
                    }
                  }
                  return found;
                }));
      }
      for (long from = 0; from < n; from += 500) {
        EncodedEntries entries = new EncodedEntries(500, 500 * 160);
        for (long i = from; i < from + 500; i++) {
          entries.add(key(i), value(i, 100 + (int) (i % 50)));
        }
        restore(cache, entries);
      }
      done.set(true);
      for (Future<Long> f : seen) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertEquals(n, cache.estimatedSize());
      for (long i = 0; i < n; i++) {
        assertArrayEquals(value(i, 100 + (int) (i % 50)), cache.getIfPresent(i));
      }
    } finally {
      done.set(true);
      readers.shutdownNow();
    }
  }

  @Test
  void anEmptyBatchChangesNothingAndEntriesCheckTheirRoom() {
    try (Cache<Long, byte[]> cache = builder().maximumMemory(1L << 20).build()) {
      restore(cache, new EncodedEntries(1, 1));
      assertEquals(0, cache.estimatedSize());
    }
    EncodedEntries entries = new EncodedEntries(1, 4);
    byte[] b = entries.room(3);
    b[entries.end()] = 1;
    assertThrows(IllegalArgumentException.class, () -> entries.commit(3, 2));
    entries.commit(1, 2);
    assertEquals(1, entries.size());
    assertEquals(3, entries.end());
    assertThrows(IndexOutOfBoundsException.class, () -> entries.keyLength(1));
  }
}
