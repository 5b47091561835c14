package dev.larder;

import dev.larder.codec.Codecs;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One round of {@code close()} racing every kind of call: a cache is filled with values of 2-256
 * KB, threads read ({@code getIfPresent}, and {@code read(key, reader)} in place, whose reader also
 * keeps the last view it was handed and reads it again after its call, after close too), iterate
 * ({@code asMap().entrySet()}), write, load ({@code get} with a loader) and empty it ({@code
 * invalidateAll}), and the cache is closed under them a random 0-3 ms after every thread has made
 * its first call. Readers copying large values out of pages while the pages are given back is what
 * once crashed the JVM.
 *
 * <p>Invariants a round checks: every call completes or throws {@link IllegalStateException}, and
 * that only once close has begun; every value read is its key's and whole (values embed their key
 * and length, and a pattern of both); close itself completes; after it every call throws {@link
 * IllegalStateException}. A violation is collected as a failure, never lost.
 */
final class CloseRace {

  /** Values in the cache at the start of a round. */
  static final int KEYS = 64;

  private static final int GETTERS = 3;
  private static final int CHECK_STRIDE = 61;
  private static final long JOIN_NANOS = TimeUnit.SECONDS.toNanos(20);
  private static final long START_SECONDS = 20;

  private final Storage storage;
  private final boolean oneSegment;
  private final SplittableRandom random;

  /** Each key's value, made once: a round's fill is then puts alone, and rounds come fast. */
  private final byte[][] values = new byte[KEYS][];

  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final AtomicLong valuesRead = new AtomicLong();

  /**
   * @param storage where the cache keeps its pages
   * @param oneSegment a one-segment cache, else the default shape (which splits as it fills)
   * @param seed the rounds' randomness
   */
  CloseRace(Storage storage, boolean oneSegment, long seed) {
    this.storage = storage;
    this.oneSegment = oneSegment;
    this.random = new SplittableRandom(seed);
    for (int key = 0; key < KEYS; key++) {
      // Large values: a reader's copy is the window in which close once faulted it.
      values[key] = value(key, 2_000 + random.nextInt(254_001));
    }
  }

  /** Returns what went wrong so far, in every round. */
  ConcurrentLinkedQueue<Throwable> failures() {
    return failures;
  }

  /** Returns values read and checked so far. */
  long valuesRead() {
    return valuesRead.get();
  }

  /** Runs one round; failures are collected. */
  void round() throws InterruptedException {
    CacheBuilder<Long, byte[]> builder =
        Cache.builder(Codecs.longs(), Codecs.bytes()).storage(storage).maximumMemory(64L << 20);
    Cache<Long, byte[]> cache = (oneSegment ? builder.segments(1) : builder).build();
    for (int key = 0; key < KEYS; key++) {
      cache.put((long) key, values[key]);
    }
    AtomicBoolean closing = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch running = new CountDownLatch(GETTERS + 3);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < GETTERS; t++) {
      threads.add(worker(closing, stop, running, random.split(), r -> get(cache, r)));
    }
    threads.add(worker(closing, stop, running, random.split(), r -> iterate(cache)));
    ByteBuffer[] kept = new ByteBuffer[1];
    threads.add(worker(closing, stop, running, random.split(), r -> readInPlace(cache, r, kept)));
    threads.add(worker(closing, stop, running, random.split(), r -> mutate(cache, r)));
    // Close once every thread is in its loop, so that each round races close (thread starts
    // take milliseconds on a loaded machine).
    if (!running.await(START_SECONDS, TimeUnit.SECONDS)) {
      failures.add(new AssertionError("threads not started within " + START_SECONDS + " s"));
    }
    spin(TimeUnit.MICROSECONDS.toNanos(random.nextInt(3_001)));
    closing.set(true);
    try {
      cache.close();
    } catch (Throwable e) {
      failures.add(new AssertionError("close() threw", e));
    }
    stop.set(true);
    join(threads);
    readEscaped(kept[0]);
    checkClosed(cache);
  }

  private interface Call {
    void run(SplittableRandom random);
  }

  /**
   * A thread that makes {@code call} until stopped, or until a call throws; counts {@code running}
   * down once its first call has returned or thrown.
   */
  private Thread worker(
      AtomicBoolean closing,
      AtomicBoolean stop,
      CountDownLatch running,
      SplittableRandom random,
      Call call) {
    return Thread.ofPlatform()
        .start(
            () -> {
              try {
                try {
                  call.run(random);
                } finally {
                  running.countDown();
                }
                while (!stop.get()) {
                  call.run(random);
                }
              } catch (IllegalStateException e) {
                if (!closing.get()) {
                  failures.add(new AssertionError("IllegalStateException before close", e));
                }
              } catch (Throwable e) {
                failures.add(e);
              }
            });
  }

  private void get(Cache<Long, byte[]> cache, SplittableRandom random) {
    long key = random.nextLong(KEYS);
    byte[] value = cache.getIfPresent(key);
    if (value != null) {
      check(key, value);
    }
  }

  /**
   * A read in place whose reader copies the bytes it is shown (a copy made from bytes that changed
   * under it is discarded by the cache), then reads the view the previous call let escape: reading
   * a view after its call, even after close, must not fault.
   */
  private void readInPlace(Cache<Long, byte[]> cache, SplittableRandom random, ByteBuffer[] kept) {
    readEscaped(kept[0]);
    long key = random.nextLong(KEYS);
    byte[] value =
        cache.read(
            key,
            view -> {
              kept[0] = view.duplicate();
              byte[] copy = new byte[view.remaining()];
              view.get(copy);
              return copy;
            });
    if (value != null) {
      check(key, value);
    }
  }

  /** Reads a view after the call that handed it out; what it shows is not checked. */
  private void readEscaped(ByteBuffer escaped) {
    if (escaped != null) {
      long sum = 0;
      for (int at = 0; at < escaped.limit(); at += 512) {
        sum += escaped.get(at);
      }
      escapedSum.add(sum);
    }
  }

  /** Sums of escaped views, so that their reads are not optimized away. */
  private final LongAdder escapedSum = new LongAdder();

  private void iterate(Cache<Long, byte[]> cache) {
    for (Map.Entry<Long, byte[]> entry : cache.asMap().entrySet()) {
      check(entry.getKey(), entry.getValue());
    }
  }

  /**
   * A write, a load, or rarely an emptying: rarely, since readers of an empty cache copy nothing,
   * and copying is the race.
   */
  private void mutate(Cache<Long, byte[]> cache, SplittableRandom random) {
    int key = random.nextInt(KEYS);
    int choice = random.nextInt(1024);
    if (choice == 0) {
      cache.invalidateAll();
    } else if (choice < 512) {
      cache.put((long) key, values[key]);
    } else {
      check(key, cache.get((long) key, k -> values[key]));
    }
  }

  /**
   * Checks the value's key and length and every {@value #CHECK_STRIDE}th byte of its pattern (a
   * torn or foreign value differs in far more places): readers then spend their time copying values
   * out of pages, which is the race, rather than checking them.
   */
  private void check(long key, byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    if (value.length < 12 || buffer.getLong() != key || buffer.getInt() != value.length) {
      throw new AssertionError("foreign or torn value for key " + key);
    }
    for (int at = 12; at < value.length; at += CHECK_STRIDE) {
      checkByte(key, value, at);
    }
    checkByte(key, value, value.length - 1);
    valuesRead.incrementAndGet();
  }

  private static void checkByte(long key, byte[] value, int at) {
    if (value[at] != pattern(key, at)) {
      throw new AssertionError("torn value for key " + key + " at " + at);
    }
  }

  private void join(List<Thread> threads) throws InterruptedException {
    long deadline = System.nanoTime() + JOIN_NANOS;
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (thread.isAlive()) {
        failures.add(new AssertionError("a call racing close() did not return within 20 s"));
        return;
      }
    }
  }

  /** After close, every call throws IllegalStateException. */
  private void checkClosed(Cache<Long, byte[]> cache) {
    List<Call> calls =
        List.of(
            r -> cache.getIfPresent(1L),
            r -> cache.read(1L, view -> view.get(0)),
            r -> cache.put(1L, value(1, 16)),
            r -> cache.get(1L, k -> value(k, 16)),
            r -> cache.invalidateAll(),
            r -> cache.asMap().entrySet().iterator().forEachRemaining(e -> {}));
    for (Call call : calls) {
      try {
        call.run(random);
        failures.add(new AssertionError("a call after close() did not throw"));
      } catch (IllegalStateException expected) {
        // the contract
      } catch (Throwable e) {
        failures.add(e);
      }
    }
  }

  /** A value of {@code length} bytes: its key, its length, then a pattern of both. */
  private static byte[] value(long key, int length) {
    ByteBuffer buffer = ByteBuffer.allocate(length).putLong(key).putInt(length);
    while (buffer.hasRemaining()) {
      buffer.put(pattern(key, buffer.position()));
    }
    return buffer.array();
  }

  private static byte pattern(long key, int at) {
    return (byte) (key * 31 + at);
  }

  /** Waits without sleeping, so that sub-millisecond delays are kept. */
  private static void spin(long nanos) {
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() - until < 0) {
      Thread.onSpinWait();
    }
  }
}
