package dev.larder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Promotion into the hot tier races writes, removals, evictions and splits, and no read may return
 * a value older than one whose write had returned before the read began. Each key has one writer,
 * which writes versions 1, 2, 3... as "key:version" and records each version as begun before the
 * write and done after it returns; readers check that a value read is the key's, and that its
 * version is at least the last done before the read, and the highest any read had returned before
 * it began (one tier must not show an older value after the other showed a newer one), and at most
 * the last begun after it. Removals and evictions may make a read miss, never return an older
 * version.
 */
class HotTierRaceTest {

  private static final int KEYS = 64;
  private static final long MILLIS = 4_000;

  enum Shape {
    /** Few keys, all hot: promotions and replacements race every write. */
    HOT_KEYS,
    /** A bound smaller than the keys: evictions take hot entries out too. */
    EVICTING,
    /** A byte bound large enough to split the first segment while readers promote. */
    SPLITTING
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  @Timeout(120)
  void noReadIsOlderThanAWriteThatReturnedBeforeIt(Shape shape) throws Exception {
    for (Storage storage : Storage.values()) {
      try (Cache<Long, String> cache = build(shape, storage)) {
        run(cache, shape);
      }
    }
  }

  private static Cache<Long, String> build(Shape shape, Storage storage) {
    CacheBuilder<Long, String> b = Cache.builder(Long.class, String.class).storage(storage);
    return switch (shape) {
      case HOT_KEYS -> b.maximumEntries(10_000).hotTierShare(0.5).build();
      case EVICTING -> b.maximumEntries(KEYS / 2).segments(1).hotTierShare(0.5).build();
      case SPLITTING -> b.maximumMemory(256L << 20).hotTier(4L << 20).build();
    };
  }

  @SuppressWarnings("ReferenceEquality") // one instance twice running means the hot tier served it
  private static void run(Cache<Long, String> cache, Shape shape) throws Exception {
    AtomicLongArray begun = new AtomicLongArray(KEYS);
    AtomicLongArray done = new AtomicLongArray(KEYS);
    AtomicLongArray observed = new AtomicLongArray(KEYS);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    LongAdder tierHits = new LongAdder();
    // Every key written once, then the keys read most read often before the race begins, so
    // that it races writes against entries already in the tier as well as against promotions
    // (on a loaded machine a promotion that must win the segment's lock from two writers may
    // come late).
    for (int k = 0; k < KEYS; k++) {
      write(cache, k, begun, done);
    }
    for (int k = 0; k < 8; k++) {
      write(cache, k, begun, done);
      for (int i = 0; i < 200; i++) {
        cache.getIfPresent((long) k);
      }
    }
    List<Thread> threads = new ArrayList<>();
    int writers = 2;
    for (int w = 0; w < writers; w++) {
      int first = w;
      threads.add(
          Thread.ofPlatform()
              .unstarted(
                  guard(
                      failure,
                      stop,
                      () -> {
                        long filler = 1_000_000L * (first + 1);
                        while (!stop.get()) {
                          for (int k = first; k < KEYS; k += writers) {
                            write(cache, k, begun, done);
                          }
                          if (shape == Shape.SPLITTING) {
                            // bulk that takes the first segment past its split point while readers
                            // promote
                            for (int i = 0; i < 50; i++) {
                              cache.put(filler++, "f".repeat(200));
                            }
                          }
                        }
                      })));
    }
    for (int r = 0; r < 3; r++) {
      threads.add(
          Thread.ofPlatform()
              .unstarted(
                  guard(
                      failure,
                      stop,
                      () -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        String[] last = new String[KEYS];
                        while (!stop.get()) {
                          // a skewed choice, so that some keys are read often enough to be promoted
                          int k = random.nextInt(4) == 0 ? random.nextInt(KEYS) : random.nextInt(8);
                          String v = read(cache, k, begun, done, observed);
                          // the store decodes a new String for every read: the same instance twice
                          // running
                          // came from the tier
                          if (v != null && v == last[k]) {
                            tierHits.increment();
                          }
                          last[k] = v;
                        }
                      })));
    }
    threads.forEach(Thread::start);
    Thread.sleep(MILLIS);
    stop.set(true);
    for (Thread t : threads) {
      t.join(30_000);
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertTrue(tierHits.sum() > 0, "no read was served by the tier: the race was not run");
    for (int k = 0; k < KEYS; k++) {
      String v = cache.getIfPresent((long) k);
      if (v != null) {
        assertEquals(done.get(k), version(k, v), "key " + k + " at rest");
      }
    }
  }

  private static void write(
      Cache<Long, String> cache, int k, AtomicLongArray begun, AtomicLongArray done) {
    long version = begun.get(k) + 1;
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int op = random.nextInt(20);
    if (op == 0) {
      // a removal, then the next version
      cache.invalidate((long) k);
    } else if (op == 1) {
      cache.remove((long) k);
    }
    begun.set(k, version);
    String value = k + ":" + version;
    switch (random.nextInt(4)) {
      case 0 -> cache.compute((long) k, (key, old) -> value);
      case 1 -> cache.asMap().put((long) k, value);
      default -> cache.put((long) k, value);
    }
    done.set(k, version);
  }

  /** Returns the value read, or null. */
  private static String read(
      Cache<Long, String> cache,
      int k,
      AtomicLongArray begun,
      AtomicLongArray done,
      AtomicLongArray observed) {
    long least = Math.max(done.get(k), observed.get(k));
    String v = cache.getIfPresent((long) k);
    long most = begun.get(k);
    if (v == null) {
      return null;
    }
    long version = version(k, v);
    if (version < least || version > most) {
      throw new AssertionError(
          "key "
              + k
              + " read version "
              + version
              + ", expected within ["
              + least
              + ", "
              + most
              + "]");
    }
    observed.accumulateAndGet(k, version, Math::max);
    return v;
  }

  private static long version(int k, String v) {
    int colon = v.indexOf(':');
    if (colon < 0 || Integer.parseInt(v.substring(0, colon)) != k) {
      throw new AssertionError("key " + k + " read another key's value: " + v);
    }
    return Long.parseLong(v.substring(colon + 1));
  }

  private static Runnable guard(
      AtomicReference<Throwable> failure, AtomicBoolean stop, Runnable body) {
    return () -> {
      try {
        body.run();
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        stop.set(true);
      }
    };
  }
}
