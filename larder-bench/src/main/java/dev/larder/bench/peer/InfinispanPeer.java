package dev.larder.bench.peer;

import org.infinispan.AdvancedCache;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.cache.StorageType;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.context.Flag;
import org.infinispan.manager.DefaultCacheManager;

/**
 * Infinispan embedded, local mode, one {@link DefaultCacheManager} per family with JMX and
 * statistics off. Object storage (entries as Java objects on the heap) or off-heap storage (entries
 * marshalled into native memory; String, Long and byte[] by ProtoStream, other values as codec
 * bytes); bounded with {@code maxCount}. Writes use {@link Flag#IGNORE_RETURN_VALUES}, as the
 * documentation advises when the previous value is not needed.
 */
final class InfinispanPeer implements Peer {

  private final boolean offHeap;

  InfinispanPeer(boolean offHeap) {
    this.offHeap = offHeap;
  }

  @Override
  public String name() {
    return offHeap ? "Infinispan-offheap" : "Infinispan-object";
  }

  @Override
  public boolean offHeap() {
    return offHeap;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    GlobalConfigurationBuilder global = new GlobalConfigurationBuilder().nonClusteredDefault();
    global.jmx().enabled(false);
    global.cacheContainer().statistics(false);
    DefaultCacheManager manager = new DefaultCacheManager(global.build(), true);
    ConfigurationBuilder config = new ConfigurationBuilder();
    config.statistics().enabled(false);
    config.memory().storage(offHeap ? StorageType.OFF_HEAP : StorageType.HEAP);
    if (!spec.unbounded()) {
      config.memory().maxCount(spec.entryBound());
    }
    boolean encode =
        offHeap && spec.valueType() != byte[].class && spec.valueType() != String.class;
    return new CacheFamily<>() {
      @Override
      public BenchCache<K, V> newCache(String name) {
        manager.defineConfiguration(name, config.build());
        if (encode) {
          AdvancedCache<K, byte[]> cache = manager.<K, byte[]>getCache(name).getAdvancedCache();
          return new EncodingCache<>(new InfinispanCache<>(cache), spec.valueCodec());
        }
        return new InfinispanCache<>(manager.<K, V>getCache(name).getAdvancedCache());
      }

      @Override
      public void close() {
        manager.stop();
      }
    };
  }

  private static final class InfinispanCache<K, V> implements BenchCache<K, V> {
    private final AdvancedCache<K, V> cache;
    private final AdvancedCache<K, V> writes;

    InfinispanCache(AdvancedCache<K, V> cache) {
      this.cache = cache;
      this.writes = cache.withFlags(Flag.IGNORE_RETURN_VALUES);
    }

    @Override
    public V get(K key) {
      return cache.get(key);
    }

    @Override
    public void put(K key, V value) {
      writes.put(key, value);
    }

    @Override
    public long size() {
      return cache.size();
    }

    @Override
    public void close() {
      cache.stop();
    }
  }
}
