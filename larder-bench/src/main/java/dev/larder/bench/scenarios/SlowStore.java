package dev.larder.bench.scenarios;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The simulated repository behind the concurrency scenario's caches: every load and every write
 * takes a fixed latency (sleeping, as I/O would), and a node's value is 256 bytes derived from its
 * path. It counts its loads, which are the caches' misses. Thread-safe.
 */
final class SlowStore {

  static final int VALUE_BYTES = 256;

  private final long latencyNanos;
  private final LongAdder loads = new LongAdder();

  SlowStore(long latencyNanos) {
    this.latencyNanos = latencyNanos;
  }

  byte[] load(String path) {
    loads.increment();
    pause();
    byte[] value = new byte[VALUE_BYTES];
    int h = path.hashCode();
    for (int i = 0; i < value.length; i++) {
      h = h * 31 + i;
      value[i] = (byte) h;
    }
    return value;
  }

  /** Returns loads so far (each one a cache miss). */
  long loads() {
    return loads.sum();
  }

  void store(String path, byte[] value) {
    pause();
  }

  private void pause() {
    if (latencyNanos > 0) {
      LockSupport.parkNanos(latencyNanos);
    }
  }
}
