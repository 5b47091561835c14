package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A write compacts a segment's dead bytes after it released the lock, and only if the lock is
 * free then; at an eighth of the pages dead it compacts under its own lock hold (Segment,
 * compactInlineOrLater). Under writers that keep the lock busy, compaction must still keep up:
 * entries that fit the bound many times over through heavy updates are never evicted to make
 * room that garbage took, whichever writer ends up compacting.
 */
class DeferredCompactionTest {

  private static final int KEYS = 400;
  private static final int VALUE_BYTES = 1024;

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void concurrentUpdatesNeverEvictEntriesThatFit(Storage storage) throws Exception {
    // 400 entries of about 1 KiB: about 40% of the bound, so only garbage could crowd them out
    long bound = 1L << 20;
    try (Cache<Long, byte[]> cache = Cache.builder(Codecs.longs(), Codecs.bytes())
        .storage(storage).maximumMemory(bound).segments(4).build()) {
      for (long key = 0; key < KEYS; key++) {
        cache.put(key, value(key, 0));
      }
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        SplittableRandom random = new SplittableRandom(500 + t);
        writers.add(Thread.ofPlatform().start(() -> {
          try {
            for (int i = 1; i <= 25_000; i++) {
              long key = random.nextInt(KEYS);
              cache.put(key, value(key, i));
              if (i % 8 == 0) {
                byte[] read = cache.getIfPresent(random.nextLong(KEYS));
                assertTrue(read == null || read.length == VALUE_BYTES, "a value's length");
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      for (Thread writer : writers) {
        writer.join();
      }
      assertTrue(failures.isEmpty(), () -> "failures: " + failures);
      assertTrue(cache.memoryUsed() <= bound, "memoryUsed " + cache.memoryUsed());
      assertEquals(KEYS, cache.estimatedSize(), "entries held after the updates");
      for (long key = 0; key < KEYS; key++) {
        byte[] value = cache.getIfPresent(key);
        assertTrue(value != null, "key " + key + " was evicted");
        assertEquals(key, ByteBuffer.wrap(value).getLong(), "value held for " + key);
      }
    }
  }

  private static byte[] value(long key, int version) {
    return ByteBuffer.allocate(VALUE_BYTES).putLong(key).putInt(version).array();
  }
}
