package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.internal.bulk.BulkRestore;
import dev.larder.internal.bulk.EncodedEntries;
import dev.larder.internal.count.FirstByteCounts;
import dev.larder.testing.Workers;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link FirstByteCounts}, the store's count of keys by the first byte of their encoded form: at
 * quiescence it is what a walk of the keys finds, after concurrent puts, computes, removes,
 * evictions, a segment split, bulk restores, clears and expiries.
 */
class FirstByteCountTest {

  /** The first bytes keys are made with: the server's databases, its chunk space, and the top. */
  private static final int[] FIRSTS = {0, 1, 2, 15, 0x80, 0x81, 0xFF};

  /** The value mark counted: bit 2 of a value's first byte (the server's expiry flag). */
  private static final int MARK = 0b100;

  private static Cache<byte[], byte[]> counted(CacheBuilder<byte[], byte[]> builder) {
    Cache<byte[], byte[]> cache = builder.executor(Runnable::run).build();
    ((FirstByteCounts) cache).countKeysByFirstByte(MARK);
    return cache;
  }

  private static CacheBuilder<byte[], byte[]> bytes() {
    return Cache.builder(Codecs.bytes(), Codecs.bytes());
  }

  private static byte[] key(SplittableRandom random, int keys) {
    int n = random.nextInt(keys);
    byte[] key = new byte[1 + Integer.toString(n).length()];
    key[0] = (byte) FIRSTS[n % FIRSTS.length];
    byte[] digits = Integer.toString(n).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    System.arraycopy(digits, 0, key, 1, digits.length);
    return key;
  }

  /** What a walk of the cache finds: keys by first byte, then marked values by first byte. */
  private static long[] walk(Cache<byte[], byte[]> cache) {
    long[] counts = new long[512];
    for (var e : cache.asMap().entrySet()) {
      int first = e.getKey()[0] & 0xFF;
      counts[first]++;
      if (e.getValue().length > 0 && (e.getValue()[0] & MARK) != 0) {
        counts[256 + first]++;
      }
    }
    return counts;
  }

  private static void assertCountsMatchAWalk(Cache<byte[], byte[]> cache) {
    long[] walked = walk(cache);
    FirstByteCounts counts = (FirstByteCounts) cache;
    long total = 0;
    for (int first = 0; first < 256; first++) {
      assertEquals(walked[first], counts.keysStartingWith(first), "keys starting with " + first);
      assertEquals(
          walked[256 + first],
          counts.markedKeysStartingWith(first),
          "marked keys starting with " + first);
      total += walked[first];
    }
    assertEquals(cache.estimatedSize(), total);
  }

  /** A value of 200 B, marked or not (marks change as keys are overwritten). */
  private static byte[] value(SplittableRandom random) {
    byte[] value = new byte[200];
    value[0] = (byte) (random.nextBoolean() ? MARK | 0x21 : 0x21);
    return value;
  }

  @Test
  @Timeout(60)
  void concurrentWritesEvictionsAndASplitLeaveTheCountsOfAWalk() throws Exception {
    // 4 MiB in four segments: the cache starts with one, splits it into four, and then evicts
    // (about 30,000 keys of 200 B present at a time, about 7 MB).
    LongAdder evictions = new LongAdder();
    try (Cache<byte[], byte[]> cache =
            counted(
                bytes()
                    .maximumMemory(4L << 20)
                    .segments(4)
                    .evictionListener(
                        (k, v, cause) -> {
                          if (cause == RemovalCause.SIZE) {
                            evictions.increment();
                          }
                        }));
        Workers writers = Workers.named("writer")) {
      writers.start(
          4,
          index -> {
            SplittableRandom random = new SplittableRandom(index);
            for (int op = 0; op < 60_000; op++) {
              byte[] key = key(random, 60_000);
              byte[] value = value(random);
              switch (random.nextInt(5)) {
                case 0, 1 -> cache.put(key, value);
                case 2 -> cache.remove(key);
                case 3 -> cache.asMap().computeIfPresent(key, (k, v) -> null);
                default ->
                    cache
                        .asMap()
                        .compute(key, (k, v) -> v == null || v[0] != value[0] ? value : null);
              }
            }
          });
      writers.join(Duration.ofSeconds(50));
      assertTrue(evictions.sum() > 0, "nothing was evicted");
      assertCountsMatchAWalk(cache);
      cache.invalidateAll();
      assertCountsMatchAWalk(cache);
      assertEquals(0, ((FirstByteCounts) cache).keysStartingWith(0));
      assertEquals(0, ((FirstByteCounts) cache).markedKeysStartingWith(0));
    }
  }

  @Test
  void bulkRestoresAndPutsOverThemAreCounted() {
    try (Cache<byte[], byte[]> cache = counted(bytes().maximumMemory(64L << 20))) {
      EncodedEntries entries = new EncodedEntries(16, 1024);
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; i < 10_000; i++) {
        entries.add(key(random, 20_000), value(random));
      }
      ((BulkRestore) cache).restore(entries);
      for (int i = 0; i < 5_000; i++) {
        cache.put(key(random, 20_000), value(random));
      }
      assertCountsMatchAWalk(cache);
    }
  }

  @Test
  void expiredKeysCountUntilRemoved() {
    AtomicLong now = new AtomicLong(1);
    try (Cache<byte[], byte[]> cache =
        counted(
            bytes()
                .maximumMemory(64L << 20)
                .expireAfterWrite(Duration.ofSeconds(10))
                .ticker(now::get))) {
      for (int i = 0; i < 100; i++) {
        cache.put(new byte[] {3, (byte) i}, new byte[] {MARK});
      }
      now.addAndGet(Duration.ofSeconds(11).toNanos());
      assertEquals(100, ((FirstByteCounts) cache).keysStartingWith(3));
      assertEquals(100, ((FirstByteCounts) cache).markedKeysStartingWith(3));
      cache.cleanUp();
      assertEquals(0, ((FirstByteCounts) cache).keysStartingWith(3));
      assertEquals(0, ((FirstByteCounts) cache).markedKeysStartingWith(3));
      assertCountsMatchAWalk(cache);
    }
  }

  @Test
  void onlyACacheNotYetUsedStartsCounting() {
    try (Cache<byte[], byte[]> cache = bytes().maximumMemory(1L << 20).build()) {
      FirstByteCounts counts = (FirstByteCounts) cache;
      assertFalse(counts.countsKeysByFirstByte());
      cache.put(new byte[] {1}, new byte[1]);
      assertThrows(IllegalStateException.class, () -> counts.countKeysByFirstByte(MARK));
      assertThrows(IllegalStateException.class, () -> counts.keysStartingWith(1));
      assertThrows(IllegalArgumentException.class, () -> counts.keysStartingWith(256));
    }
  }
}
