package dev.larder.cluster;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.Storage;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.util.Objects;

/**
 * Builds a {@link ClusteredCache}: the local store's settings (bound, storage) plus a
 * {@link ClusterConfig}. Not thread-safe. Loaders, expiry and removal listeners are not
 * available on clustered caches yet.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ClusteredCacheBuilder<K, V> {

  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;
  private long maximumMemory = -1;
  private Storage storage;
  private ClusterConfig cluster = ClusterConfig.builder().build();

  ClusteredCacheBuilder(Codec<K> keyCodec, Codec<V> valueCodec) {
    this.keyCodec = Objects.requireNonNull(keyCodec, "keyCodec");
    this.valueCodec = Objects.requireNonNull(valueCodec, "valueCodec");
    if (!keyCodec.deterministic()) {
      throw new IllegalArgumentException("the key codec for " + keyCodec.type().getName()
          + " is not deterministic; a clustered cache needs equal keys to encode equally");
    }
  }

  /**
   * @param bytes this member's memory bound (see {@link CacheBuilder#maximumMemory}); unbounded
   *     by default
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> maximumMemory(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maximumMemory must be positive, was " + bytes);
    }
    this.maximumMemory = bytes;
    return this;
  }

  /**
   * @param storage where this member's store keeps its pages (see {@link CacheBuilder#storage})
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> storage(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
    return this;
  }

  /**
   * @param config the cluster to join and how to spread entries over it
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> cluster(ClusterConfig config) {
    this.cluster = Objects.requireNonNull(config, "config");
    return this;
  }

  /**
   * Builds the local store and joins the cluster; returns once this member is in a view (its
   * state transfer continues in the background: see {@link ClusteredCache#awaitRebalanced}).
   *
   * @return the clustered cache
   * @throws ClusterException if the cluster cannot be joined
   */
  public ClusteredCache<K, V> build() {
    CacheBuilder<byte[], byte[]> local = Cache.builder(Codecs.bytes(), Codecs.bytes());
    if (maximumMemory > 0) {
      local.maximumMemory(maximumMemory);
    } else {
      local.unbounded();
    }
    if (storage != null) {
      local.storage(storage);
    }
    return ClusteredLarderCache.start(keyCodec, valueCodec, local.recordStats().build(),
        maximumMemory > 0 ? maximumMemory : Long.MAX_VALUE, cluster);
  }
}
