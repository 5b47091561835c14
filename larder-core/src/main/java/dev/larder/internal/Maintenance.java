package dev.larder.internal;

import java.lang.ref.WeakReference;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Periodic reclamation of expired entries. One shared daemon thread only schedules; the sweep
 * itself runs on the cache's executor, a bounded number of index slots a segment at a time so that
 * no run holds a segment lock for long. The task holds the cache weakly, so an unclosed,
 * unreachable cache can still be collected.
 */
final class Maintenance {

  static final long PERIOD_MILLIS = 1000;
  static final int SLOTS_PER_RUN = 8192;

  private static final ScheduledExecutorService SCHEDULER = newScheduler();

  private final ScheduledFuture<?> task;

  private Maintenance(ScheduledFuture<?> task) {
    this.task = task;
  }

  static Maintenance schedule(LarderCache<?, ?> cache, Executor executor) {
    WeakReference<LarderCache<?, ?>> ref = new WeakReference<>(cache);
    AtomicBoolean running = new AtomicBoolean();
    Runnable sweep =
        () -> {
          try {
            LarderCache<?, ?> c = ref.get();
            if (c != null && !c.isClosed()) {
              c.sweep(SLOTS_PER_RUN);
            }
          } catch (IllegalStateException closedMeanwhile) {
            // the cache was closed during the sweep: nothing left to reclaim
          } finally {
            running.set(false);
          }
        };
    ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
    self[0] =
        SCHEDULER.scheduleWithFixedDelay(
            () -> {
              if (ref.get() == null) {
                self[0].cancel(false);
              } else if (running.compareAndSet(false, true)) {
                try {
                  executor.execute(sweep);
                } catch (RuntimeException rejected) {
                  running.set(false);
                }
              }
            },
            PERIOD_MILLIS,
            PERIOD_MILLIS,
            TimeUnit.MILLISECONDS);
    return new Maintenance(self[0]);
  }

  void cancel() {
    task.cancel(false);
  }

  private static ScheduledExecutorService newScheduler() {
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, "larder-maintenance");
              thread.setDaemon(true);
              return thread;
            });
    scheduler.setRemoveOnCancelPolicy(true);
    return scheduler;
  }
}
