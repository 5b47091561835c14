package dev.larder.bench.peer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Caffeine with its documented defaults: {@code maximumSize} when bounded (W-TinyLFU), unbounded
 * otherwise; statistics off; maintenance on the common pool.
 */
final class CaffeinePeer implements Peer {

  @Override
  public String name() {
    return "Caffeine";
  }

  @Override
  public boolean offHeap() {
    return false;
  }

  @Override
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    return SimpleFamily.of(name -> new MapCache<>(build(spec).asMap()));
  }

  private static <K, V> Cache<K, V> build(CacheSpec<K, V> spec) {
    Caffeine<Object, Object> builder = Caffeine.newBuilder();
    if (!spec.unbounded()) {
      builder.maximumSize(spec.entryBound());
    }
    return builder.build();
  }
}
