package dev.larder.bench.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Runs an action for every id in {@code [0, n)} on several threads, thread {@code t} taking the ids
 * congruent to {@code t}. Reports progress about every two seconds from the calling thread. The
 * first exception thrown by an action is rethrown after all threads stop.
 */
final class Parallel {

  private static final long REPORT_NANOS = 2_000_000_000L;

  private Parallel() {}

  static void forEachId(long n, int threads, LongConsumer action, LongConsumer progress)
      throws InterruptedException {
    AtomicLong done = new AtomicLong();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<Thread> list = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int start = t;
      list.add(
          Thread.ofPlatform()
              .name("load-" + t)
              .start(
                  () -> {
                    try {
                      for (long id = start; id < n && failure.get() == null; id += threads) {
                        action.accept(id);
                        done.incrementAndGet();
                      }
                    } catch (RuntimeException e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    for (Thread thread : list) {
      while (thread.isAlive()) {
        thread.join(REPORT_NANOS / 1_000_000);
        if (thread.isAlive()) {
          progress.accept(done.get());
        }
      }
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }
}
