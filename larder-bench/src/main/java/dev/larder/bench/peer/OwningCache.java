package dev.larder.bench.peer;

/** The only cache of a family, which closes the family when it is closed. */
final class OwningCache<K, V> extends ForwardingCache<K, V> {

  private final CacheFamily<K, V> family;

  OwningCache(BenchCache<K, V> cache, CacheFamily<K, V> family) {
    super(cache);
    this.family = family;
  }

  /** Closes the family, which closes every cache it made (this one included) exactly once. */
  @Override
  public void close() {
    family.close();
  }
}
