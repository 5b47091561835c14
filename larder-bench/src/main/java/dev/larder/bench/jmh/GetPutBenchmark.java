package dev.larder.bench.jmh;

import dev.larder.bench.measure.ZipfSampler;
import dev.larder.bench.peer.BenchCache;
import dev.larder.bench.peer.CacheSpec;
import dev.larder.bench.peer.Peers;
import dev.larder.codec.Codecs;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Reads and writes of a bounded cache under Zipf-distributed keys, shaped like Caffeine's {@code
 * GetPutBenchmark}: a cache filled to its bound, a precomputed ring of key indexes (Zipf, exponent
 * 0.99, scrambled so that popular keys are spread over the key space) that each thread walks from
 * its own start, and three workloads: {@code read_only} (100% reads on every thread), {@code
 * readwrite} (a group of three readers and one writer: 75/25) and {@code write_only} (100% writes).
 * Throughput mode; the operations of every thread are summed.
 *
 * <p>Keys are 10-character strings and values byte arrays of {@code valueBytes} (1 KiB by default,
 * as in {@code ./larder bench throughput}); a write stores one of a few preallocated arrays, so no
 * value is generated while measuring. The key space is twice the bound, so about half the reads
 * miss and writes of absent keys evict. {@code ConcurrentHashMap} (unbounded: it holds every key,
 * so it never misses or evicts) is the ceiling.
 *
 * <p>Thread safety: JMH's; the cache is shared ({@link Scope#Benchmark}), the walk's position is
 * per thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class GetPutBenchmark {

  /** Length of the ring of precomputed key indexes, a power of two. */
  static final int RING = 1 << 20;

  private static final int MASK = RING - 1;
  private static final int VALUE_POOL = 8;

  /** The implementation, by its peer name. */
  @Param({"Larder-offheap", "Larder-heap", "Caffeine", "ConcurrentHashMap"})
  public String implementation;

  /** The cache's entry bound; the key space is twice this. */
  @Param({"50000"})
  public int maximumSize;

  /** Bytes of each value. */
  @Param({"1024"})
  public int valueBytes;

  private BenchCache<String, byte[]> cache;
  private String[] keys;
  private int[] ring;
  private byte[][] values;

  /** Builds the cache, fills it, and precomputes the key ring. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    int keySpace = 2 * maximumSize;
    CacheSpec<String, byte[]> spec =
        new CacheSpec<>(
            String.class,
            byte[].class,
            Codecs.bytes(),
            maximumSize,
            0,
            maximumSize,
            10,
            valueBytes);
    cache =
        Peers.named(implementation)
            .orElseThrow(
                () -> new IllegalArgumentException("unknown implementation " + implementation))
            .create(spec);
    SplittableRandom random = new SplittableRandom(17);
    values = new byte[VALUE_POOL][];
    for (int i = 0; i < VALUE_POOL; i++) {
      values[i] = new byte[valueBytes];
      random.nextBytes(values[i]);
    }
    keys = new String[keySpace];
    for (int i = 0; i < keySpace; i++) {
      keys[i] = key(i);
      cache.put(keys[i], values[i % VALUE_POOL]);
    }
    ring = zipfRing(keySpace, random);
  }

  /** Closes the cache (off-heap memory is freed). */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    cache.close();
  }

  /** A thread's position in the ring; threads start at different places. */
  @State(Scope.Thread)
  public static class ThreadState {
    int index = (int) (Thread.currentThread().threadId() * 0x9E3779B9L) & MASK;
  }

  /** Returns the value read (or null), so that JMH keeps the read. */
  @Benchmark
  @Threads(4)
  public byte[] read_only(ThreadState state) {
    return cache.get(keys[ring[state.index++ & MASK]]);
  }

  /** Stores a value (100% writes). */
  @Benchmark
  @Threads(4)
  public void write_only(ThreadState state) {
    int i = state.index++;
    cache.put(keys[ring[i & MASK]], values[i & (VALUE_POOL - 1)]);
  }

  /** Returns the value read, in the 75/25 group's three reading threads. */
  @Benchmark
  @Group("readwrite")
  @GroupThreads(3)
  public byte[] readwrite_get(ThreadState state) {
    return cache.get(keys[ring[state.index++ & MASK]]);
  }

  /** The 75/25 group's writing thread. */
  @Benchmark
  @Group("readwrite")
  @GroupThreads(1)
  public void readwrite_put(ThreadState state) {
    int i = state.index++;
    cache.put(keys[ring[i & MASK]], values[i & (VALUE_POOL - 1)]);
  }

  /** Returns a 10-character key, as the throughput scenario writes them. */
  static String key(int i) {
    String digits = Integer.toString(i);
    return "0".repeat(10 - digits.length()) + digits;
  }

  /**
   * Returns {@link #RING} key indexes drawn from Zipf(0.99) over {@code keySpace} keys, the ranks
   * scrambled by a fixed permutation so that the hottest keys are not neighbours.
   */
  static int[] zipfRing(int keySpace, SplittableRandom random) {
    int[] permutation = new int[keySpace];
    for (int i = 0; i < keySpace; i++) {
      permutation[i] = i;
    }
    for (int i = keySpace - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = permutation[i];
      permutation[i] = permutation[j];
      permutation[j] = t;
    }
    ZipfSampler sampler = new ZipfSampler(keySpace, 0.99);
    int[] ring = new int[RING];
    for (int i = 0; i < RING; i++) {
      ring[i] = permutation[sampler.next(random)];
    }
    return ring;
  }
}
