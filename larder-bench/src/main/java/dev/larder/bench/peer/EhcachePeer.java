package dev.larder.bench.peer;

import org.ehcache.Cache;
import org.ehcache.CacheManager;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.CacheManagerBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.config.units.MemoryUnit;

/**
 * Ehcache 3 with a single tier, configured in code as its documentation shows: the heap tier
 * bounded by entries (values held by reference), or the off-heap tier bounded by bytes (keys and
 * values serialized with Ehcache's built-in serializers for String, Long and byte[]; other values
 * as codec bytes). One {@link CacheManager} per family.
 */
final class EhcachePeer implements Peer {

  /**
   * Per-entry allowance used to size the off-heap pool from an entry count. Ehcache reserves and
   * zeroes the whole pool when the cache is created, so a generous pool costs memory; this is close
   * to its measured overhead at small values.
   */
  private static final int OFFHEAP_ALLOWANCE = 256;

  private final boolean offHeap;

  EhcachePeer(boolean offHeap) {
    this.offHeap = offHeap;
  }

  @Override
  public String name() {
    return offHeap ? "Ehcache-offheap" : "Ehcache-heap";
  }

  @Override
  public boolean offHeap() {
    return offHeap;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    CacheManager manager = CacheManagerBuilder.newCacheManagerBuilder().build(true);
    if (!offHeap) {
      return new Family<>(manager, name -> heapCache(manager, name, spec));
    }
    if (spec.valueType() == byte[].class || spec.valueType() == String.class) {
      return new Family<>(manager, name -> offHeapCache(manager, name, spec, spec.valueType()));
    }
    CacheSpec<K, byte[]> bytes = (CacheSpec<K, byte[]>) (CacheSpec<K, ?>) spec;
    return new Family<>(
        manager,
        name ->
            new EncodingCache<>(
                offHeapCache(manager, name, bytes, byte[].class), spec.valueCodec()));
  }

  private static <K, V> BenchCache<K, V> heapCache(
      CacheManager manager, String name, CacheSpec<K, V> spec) {
    Cache<K, V> cache =
        manager.createCache(
            name,
            CacheConfigurationBuilder.newCacheConfigurationBuilder(
                spec.keyType(), spec.valueType(), ResourcePoolsBuilder.heap(spec.entryBound())));
    return new EhcacheCache<>(cache, manager, name);
  }

  private static <K, V> BenchCache<K, V> offHeapCache(
      CacheManager manager, String name, CacheSpec<K, ?> spec, Class<V> valueType) {
    // Ehcache refuses off-heap pools under 1 MiB.
    long kib = Math.max(1024, (spec.byteBudget(OFFHEAP_ALLOWANCE) + 1023) >> 10);
    Cache<K, V> cache =
        manager.createCache(
            name,
            CacheConfigurationBuilder.newCacheConfigurationBuilder(
                spec.keyType(),
                valueType,
                ResourcePoolsBuilder.newResourcePoolsBuilder().offheap(kib, MemoryUnit.KB)));
    return new EhcacheCache<>(cache, manager, name);
  }

  private record Family<K, V>(CacheManager manager, SimpleFamily.Factory<K, V> factory)
      implements CacheFamily<K, V> {

    @Override
    public BenchCache<K, V> newCache(String name) throws Exception {
      return factory.create(name);
    }

    @Override
    public void close() {
      manager.close();
    }
  }

  private record EhcacheCache<K, V>(Cache<K, V> cache, CacheManager manager, String name)
      implements BenchCache<K, V> {

    @Override
    public V get(K key) {
      return cache.get(key);
    }

    @Override
    public void put(K key, V value) {
      cache.put(key, value);
    }

    @Override
    public long size() {
      long n = 0;
      for (Cache.Entry<K, V> ignored : cache) {
        n++;
      }
      return n;
    }

    @Override
    public void close() {
      manager.removeCache(name);
    }
  }
}
