package dev.larder.cluster.internal.tx;

/**
 * A member's clock of timestamps: {@link #tick()} returns {@code max(last + 1, wall ms << 20)},
 * {@link #observe(long)} raises {@code last}. Every timestamp it hands out is above every one it
 * handed out or observed before; the wall-clock part keeps members' timestamps close, so that a
 * snapshot taken on one member is rarely far behind another's commits. Thread-safe.
 */
final class HybridClock {

  private long last;

  synchronized long tick() {
    last = Math.max(last + 1, System.currentTimeMillis() << 20);
    return last;
  }

  synchronized void observe(long timestamp) {
    if (timestamp > last) {
      last = timestamp;
    }
  }

  synchronized long current() {
    return last;
  }
}
