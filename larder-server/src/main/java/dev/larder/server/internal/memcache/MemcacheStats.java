package dev.larder.server.internal.memcache;

import java.util.concurrent.atomic.LongAdder;

/** The memcached-only counters that {@code stats} reports; thread-safe. */
public final class MemcacheStats {
  final LongAdder cmdGet = new LongAdder();
  final LongAdder cmdSet = new LongAdder();
  final LongAdder cmdTouch = new LongAdder();
  final LongAdder cmdFlush = new LongAdder();
  final LongAdder getHits = new LongAdder();
  final LongAdder getMisses = new LongAdder();

  void reset() {
    for (LongAdder a : new LongAdder[] {cmdGet, cmdSet, cmdTouch, cmdFlush, getHits, getMisses}) {
      a.reset();
    }
  }
}
