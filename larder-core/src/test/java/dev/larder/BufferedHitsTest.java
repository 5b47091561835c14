package dev.larder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;

/**
 * Lookups reach the eviction policy through the reading thread's buffer (HitBuffer), applied
 * under the segment's lock when the thread next writes to it or its buffer is full; a virtual
 * thread's lookups go to the policy at once, as every lookup did before the buffer.
 * <ul>
 *   <li>In one thread the buffer changes nothing: the same requests, with updates and removals,
 *       give the same hits and leave the same keys whether made on a platform thread (buffered)
 *       or a virtual one (direct).</li>
 *   <li>Under concurrent reads, writes and removals (records applied late, or dropped when a
 *       lock is busy, their entries moved, removed or their pages recycled meanwhile), no read
 *       returns another key's value, the bound holds at every moment sampled, and the cache's
 *       contents and size agree at the end.</li>
 * </ul>
 */
class BufferedHitsTest {

  private static final int CAPACITY = 4_000;
  private static final int HOT_KEYS = 3_000;

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void oneThreadBufferedOrNotGivesTheSameHitsAndContents(Storage storage) throws Exception {
    List<long[]> requests = requests(new SplittableRandom(11), 80_000);
    AtomicReference<Replay> direct = new AtomicReference<>();
    Thread.ofVirtual().start(() -> direct.set(replay(storage, requests))).join();
    AtomicReference<Replay> buffered = new AtomicReference<>();
    Thread.ofPlatform().start(() -> buffered.set(replay(storage, requests))).join();
    BitSet differing = (BitSet) direct.get().hits().clone();
    differing.xor(buffered.get().hits());
    assertEquals(-1, differing.nextSetBit(0), "the first request that hit in one replay only");
    assertArrayEquals(direct.get().contents(), buffered.get().contents(), "keys held at the end");
    assertTrue(direct.get().hits().cardinality() > requests.size() / 5,
        "the workload hits: " + direct.get().hits().cardinality());
  }

  /**
   * Requests as (operation, key): 0 a lookup (put on a miss), 1 an update, 2 a removal; a hot
   * set and keys requested once, so that admission and eviction decide all along.
   */
  private static List<long[]> requests(SplittableRandom random, int count) {
    List<long[]> requests = new ArrayList<>(count);
    long coldKey = 1L << 40;
    for (int i = 0; i < count; i++) {
      long key = random.nextDouble() < 0.4 ? random.nextInt(HOT_KEYS) : coldKey++;
      double r = random.nextDouble();
      requests.add(new long[] {r < 0.9 ? 0 : r < 0.97 ? 1 : 2, key});
    }
    return requests;
  }

  private record Replay(BitSet hits, long[] contents) {}

  private static Replay replay(Storage storage, List<long[]> requests) {
    try (Cache<Long, byte[]> cache = Cache.builder(Codecs.longs(), Codecs.bytes())
        .storage(storage).maximumEntries(CAPACITY).segments(4).build()) {
      BitSet hits = new BitSet(requests.size());
      for (int i = 0; i < requests.size(); i++) {
        long key = requests.get(i)[1];
        switch ((int) requests.get(i)[0]) {
          case 0 -> {
            if (cache.getIfPresent(key) != null) {
              hits.set(i);
            } else {
              cache.put(key, value(key, i % 7));
            }
          }
          case 1 -> cache.put(key, value(key, i % 5));
          default -> cache.invalidate(key);
        }
      }
      long[] contents = cache.asMap().keySet().stream().mapToLong(Long::longValue).sorted()
          .toArray();
      return new Replay(hits, contents);
    }
  }

  /** A value that names its key, of a length that varies with {@code size}. */
  private static byte[] value(long key, int size) {
    return ByteBuffer.allocate(Long.BYTES + 40 * size).putLong(key).array();
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  @Timeout(120)
  void concurrentLookupsWritesAndRemovalsKeepValuesAndTheBound(Storage storage)
      throws Exception {
    long bound = 256L << 10;
    int threads = 4;
    int operations = 60_000;
    try (Cache<Long, byte[]> cache = Cache.builder(Codecs.longs(), Codecs.bytes())
        .storage(storage).maximumMemory(bound).segments(4).build()) {
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      AtomicBoolean done = new AtomicBoolean();
      AtomicLong most = new AtomicLong();
      Thread monitor = Thread.ofPlatform().start(() -> {
        while (!done.get()) {
          most.accumulateAndGet(cache.memoryUsed(), Math::max);
          Thread.onSpinWait();
        }
      });
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = new SplittableRandom(300 + t);
        workers.add(Thread.ofPlatform().start(() -> {
          try {
            for (int i = 0; i < operations; i++) {
              // a skewed key space twice the cache's: hot keys are read, moved and updated
              long key = (long) (2_000 * Math.pow(random.nextDouble(), 3));
              int op = random.nextInt(100);
              if (op < 80) {
                byte[] value = cache.getIfPresent(key);
                if (value != null) {
                  assertEquals(key, ByteBuffer.wrap(value).getLong(), "value read for " + key);
                }
              } else if (op < 95) {
                cache.put(key, value(key, random.nextInt(8)));
              } else {
                cache.invalidate(key);
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      for (Thread worker : workers) {
        worker.join();
      }
      done.set(true);
      monitor.join();
      assertTrue(failures.isEmpty(), () -> "failures: " + failures);
      assertTrue(most.get() <= bound, "memoryUsed reached " + most.get() + " for " + bound);
      // quiescent: the contents and the size agree, and every value held names its key
      long[] keys = cache.asMap().keySet().stream().mapToLong(Long::longValue).toArray();
      assertEquals(keys.length, cache.estimatedSize(), "keys iterated against the size");
      assertTrue(keys.length > 0, "the cache holds entries");
      for (long key : keys) {
        byte[] value = cache.getIfPresent(key);
        assertTrue(value != null, "key " + key + " iterated but absent");
        assertEquals(key, ByteBuffer.wrap(value).getLong(), "value held for " + key);
      }
      assertTrue(cache.memoryUsed() <= bound, "memoryUsed " + cache.memoryUsed());
      assertTrue(Arrays.stream(keys).distinct().count() == keys.length, "a key iterated twice");
    }
  }
}
