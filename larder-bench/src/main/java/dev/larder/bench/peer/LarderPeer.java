package dev.larder.bench.peer;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.Storage;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.util.OptionalLong;

/**
 * Larder with off-heap (default) or heap-backed pages. Bounded by {@code maximumEntries} when the
 * scenario gives an entry bound, by {@code maximumMemory} for a byte bound, and explicitly {@code
 * unbounded()} for the memory scenarios. Values use the scenario's codec (for content nodes that
 * decides between plain and substituting) and its dictionary is declared, so that {@code
 * memoryUsed()} counts it; statistics off, as for every peer.
 */
public final class LarderPeer implements Peer {

  private final Storage storage;

  /**
   * @param storage where the pages live
   */
  public LarderPeer(Storage storage) {
    this.storage = storage;
  }

  @Override
  public String name() {
    return storage == Storage.HEAP ? "Larder-heap" : "Larder-offheap";
  }

  @Override
  public boolean offHeap() {
    return storage == Storage.OFF_HEAP;
  }

  @Override
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    return SimpleFamily.of(name -> new LarderCache<>(build(spec)));
  }

  /**
   * Returns a Larder cache configured for the spec.
   *
   * @param spec the scenario's needs
   * @param <K> key type
   * @param <V> value type
   */
  public <K, V> Cache<K, V> build(CacheSpec<K, V> spec) {
    return builder(spec).build();
  }

  /**
   * Returns a Larder cache configured for the spec with that hot tier.
   *
   * @param spec the scenario's needs
   * @param hotTierShare the hot tier's share of the bound ({@code CacheBuilder.hotTierShare}); 0
   *     for none
   * @param <K> key type
   * @param <V> value type
   */
  public <K, V> Cache<K, V> build(CacheSpec<K, V> spec, double hotTierShare) {
    return builder(spec).hotTierShare(hotTierShare).build();
  }

  /**
   * Returns the cache for the spec with that hot tier, wrapped for the scenarios.
   *
   * @param spec the scenario's needs
   * @param hotTierBytes the hot tier's bound ({@code CacheBuilder.hotTier})
   * @param <K> key type
   * @param <V> value type
   */
  public <K, V> BenchCache<K, V> create(CacheSpec<K, V> spec, long hotTierBytes) {
    return new LarderCache<>(builder(spec).hotTier(hotTierBytes).build());
  }

  private <K, V> CacheBuilder<K, V> builder(CacheSpec<K, V> spec) {
    CacheBuilder<K, V> builder =
        Cache.builder(keyCodec(spec.keyType()), spec.valueCodec()).storage(storage);
    if (spec.dictionary() != null) {
      builder.dictionary(spec.dictionary());
    }
    if (spec.maxEntries() > 0) {
      builder.maximumEntries(spec.maxEntries());
    } else if (spec.maxBytes() > 0) {
      builder.maximumMemory(Math.max(spec.maxBytes(), 64 * 1024));
    } else {
      builder.unbounded();
    }
    return builder;
  }

  @SuppressWarnings("unchecked")
  private static <K> Codec<K> keyCodec(Class<K> type) {
    return type == Long.class ? (Codec<K>) Codecs.longs() : (Codec<K>) Codecs.strings();
  }

  private record LarderCache<K, V>(Cache<K, V> cache) implements BenchCache<K, V> {

    @Override
    public V get(K key) {
      return cache.getIfPresent(key);
    }

    @Override
    public void put(K key, V value) {
      cache.put(key, value);
    }

    @Override
    public long size() {
      return cache.estimatedSize();
    }

    @Override
    public OptionalLong reportedBytes() {
      return OptionalLong.of(cache.memoryUsed());
    }

    @Override
    public void close() {
      cache.close();
    }
  }
}
