package dev.larder.internal;

import dev.larder.CacheLoader;
import dev.larder.RemovalListener;
import dev.larder.Storage;
import dev.larder.Ticker;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import java.util.concurrent.Executor;

/**
 * The validated settings of one cache, as the builder hands them over.
 *
 * @param keyCodec encodes keys
 * @param valueCodec encodes values
 * @param maximumMemory byte bound of the store (the cache's bound less the dictionary's), or -1
 * @param maximumEntries entry bound, or -1
 * @param storage page storage
 * @param expireAfterWriteNanos or -1
 * @param expireAfterAccessNanos or -1
 * @param loader or null
 * @param removalListener or null
 * @param evictionListener told only of evictions (SIZE, EXPIRED), or null
 * @param recordStats statistics on
 * @param executor background work
 * @param ticker time source
 * @param segments lock stripes, or -1 for the default
 * @param dictionary the codecs' substitution dictionary, counted in memoryUsed, or null
 * @param hotTierBytes bytes the hot tier may hold, outside {@code maximumMemory}; 0 for no tier,
 *     {@link Long#MAX_VALUE} for a tier bounded by entries only
 * @param hotTierEntries entries the hot tier may hold, or {@link Long#MAX_VALUE}
 * @param initialCapacity entries the segments' indexes are sized for when they are made, 0 for none
 *     (they start small and grow)
 * @param <K> key type
 * @param <V> value type
 */
public record CacheConfig<K, V>(
    Codec<K> keyCodec,
    Codec<V> valueCodec,
    long maximumMemory,
    long maximumEntries,
    Storage storage,
    long expireAfterWriteNanos,
    long expireAfterAccessNanos,
    CacheLoader<? super K, V> loader,
    RemovalListener<? super K, ? super V> removalListener,
    RemovalListener<? super K, ? super V> evictionListener,
    boolean recordStats,
    Executor executor,
    Ticker ticker,
    int segments,
    ValueDictionary dictionary,
    long hotTierBytes,
    long hotTierEntries,
    long initialCapacity) {

  /** Returns true if the cache keeps decoded values of its most read entries. */
  public boolean hotTier() {
    return hotTierBytes > 0 && hotTierEntries > 0;
  }

  /** Returns true if entries carry an expiry deadline. */
  public boolean expires() {
    return expireAfterWriteNanos > 0 || expireAfterAccessNanos > 0;
  }

  /** Returns true if bounded by bytes. */
  public boolean memoryBounded() {
    return maximumMemory > 0;
  }

  /** Returns true if bounded by entry count. */
  public boolean entryBounded() {
    return maximumEntries > 0;
  }
}
