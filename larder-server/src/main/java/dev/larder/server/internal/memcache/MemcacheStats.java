package dev.larder.server.internal.memcache;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memcached-only server state: the counters that {@code stats} reports, the flush a {@code
 * flush_all <time>} left pending (memcached keeps one flush time: a later flush_all replaces it),
 * and the items whose recache token (meta's {@code W}) is out. Thread-safe.
 */
public final class MemcacheStats {
  final LongAdder cmdGet = new LongAdder();
  final LongAdder cmdSet = new LongAdder();
  final LongAdder cmdTouch = new LongAdder();
  final LongAdder cmdFlush = new LongAdder();
  final LongAdder getHits = new LongAdder();
  final LongAdder getMisses = new LongAdder();
  private ScheduledFuture<?> pendingFlush;

  /**
   * Items an mg with N created and told its client to fill (W), by key, with the version they were
   * created with: until that item is replaced, other hits on it say Z, as memcached's do. A
   * replaced item has a new version, so its entry no longer matches and is dropped when seen. At
   * most {@value #MAX_WIN_TOKENS} entries: beyond, the table starts afresh and the oldest tokens' Z
   * is no longer sent (a hint lost, never a wrong value).
   */
  private final Map<String, Long> winTokens = new ConcurrentHashMap<>();

  static final int MAX_WIN_TOKENS = 65_536;

  /** Records that the item under key, at this version, has its recache token out. */
  void tokenSent(byte[] key, long version) {
    if (winTokens.size() >= MAX_WIN_TOKENS) {
      winTokens.clear();
    }
    winTokens.put(new String(key, StandardCharsets.ISO_8859_1), version);
  }

  /** Returns whether the item under key, at this version, has its recache token out. */
  boolean tokenOut(byte[] key, long version) {
    if (winTokens.isEmpty()) {
      return false;
    }
    String k = new String(key, StandardCharsets.ISO_8859_1);
    Long sent = winTokens.get(k);
    if (sent == null) {
      return false;
    }
    if (sent == version) {
      return true;
    }
    winTokens.remove(k, sent);
    return false;
  }

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
  synchronized void scheduleFlush(
      ScheduledExecutorService scheduler, long delayMillis, Runnable flush) {
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
