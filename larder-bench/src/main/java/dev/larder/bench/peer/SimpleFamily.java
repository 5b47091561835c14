package dev.larder.bench.peer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A family for libraries without a manager: each cache is independent; closing the family closes
 * the caches it made. Thread-safe.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class SimpleFamily<K, V> implements CacheFamily<K, V> {

  /** Creates one cache. */
  @FunctionalInterface
  interface Factory<K, V> {
    BenchCache<K, V> create(String name) throws Exception;
  }

  private final Factory<K, V> factory;
  private final List<BenchCache<K, V>> created = new ArrayList<>();

  SimpleFamily(Factory<K, V> factory) {
    this.factory = factory;
  }

  static <K, V> SimpleFamily<K, V> of(Function<String, BenchCache<K, V>> factory) {
    return new SimpleFamily<>(factory::apply);
  }

  @Override
  public BenchCache<K, V> newCache(String name) throws Exception {
    BenchCache<K, V> cache = new CloseOnce<>(factory.create(name));
    synchronized (created) {
      created.add(cache);
    }
    return cache;
  }

  /** Closes every cache of the family, so that none is left for a cleaner to free later. */
  @Override
  public void close() {
    synchronized (created) {
      for (BenchCache<K, V> cache : created) {
        cache.close();
      }
      created.clear();
    }
  }

  /** Lets a cache be closed by its user and again by its family, releasing it once. */
  private static final class CloseOnce<K, V> extends ForwardingCache<K, V> {
    private final AtomicBoolean closed = new AtomicBoolean();

    CloseOnce(BenchCache<K, V> cache) {
      super(cache);
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        cache.close();
      }
    }
  }
}
