package dev.larder.server.internal.memcache;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memcached-only server state: the counters that {@code stats} reports, and the flush a
 * {@code flush_all <time>} left pending (memcached keeps one flush time: a later flush_all
 * replaces it). Thread-safe.
 */
public final class MemcacheStats {
  final LongAdder cmdGet = new LongAdder();
  final LongAdder cmdSet = new LongAdder();
  final LongAdder cmdTouch = new LongAdder();
  final LongAdder cmdFlush = new LongAdder();
  final LongAdder getHits = new LongAdder();
  final LongAdder getMisses = new LongAdder();
  private ScheduledFuture<?> pendingFlush;

  void reset() {
    for (LongAdder a : new LongAdder[] {cmdGet, cmdSet, cmdTouch, cmdFlush, getHits, getMisses}) {
      a.reset();
    }
  }

  /**
   * Cancels a pending flush and runs {@code flush} now, or after a delay.
   *
   * @param scheduler where to run it later, or null to run it now
   * @param delayMillis the delay, when scheduler is not null
   * @param flush the flush
   */
  synchronized void scheduleFlush(ScheduledExecutorService scheduler, long delayMillis,
      Runnable flush) {
    if (pendingFlush != null) {
      pendingFlush.cancel(false);
      pendingFlush = null;
    }
    if (scheduler == null) {
      flush.run();
    } else {
      pendingFlush = scheduler.schedule(flush, delayMillis, TimeUnit.MILLISECONDS);
    }
  }
}
