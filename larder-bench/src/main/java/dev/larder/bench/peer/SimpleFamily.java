package dev.larder.bench.peer;

import java.util.function.Function;

/**
 * A family for libraries without a manager: each cache is independent.
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

  SimpleFamily(Factory<K, V> factory) {
    this.factory = factory;
  }

  static <K, V> SimpleFamily<K, V> of(Function<String, BenchCache<K, V>> factory) {
    return new SimpleFamily<>(factory::apply);
  }

  @Override
  public BenchCache<K, V> newCache(String name) throws Exception {
    return factory.create(name);
  }

  @Override
  public void close() {
    // Each cache is closed by its user; there is no shared state.
  }
}
