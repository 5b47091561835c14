package dev.larder.jcache.internal;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.RemovalCause;
import dev.larder.codec.ByteSink;
import dev.larder.codec.Codec;
import dev.larder.jcache.LarderConfiguration;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;

/**
 * Store-by-value: entries live as bytes in a Larder {@link Cache}, the key through its codec and
 * the value behind its expiry time ({@link ExpirableCodec}). Every read decodes a fresh copy, and
 * the store's bound and byte accounting apply exactly as they do to any Larder cache.
 *
 * <p>Entries the store evicts to honour its bound are reported to {@code onEviction} (for the
 * CacheEvictions statistic); JCache defines no listener event for eviction.
 */
final class ByteEntryStore<K, V> implements EntryStore<K, V> {

  private final Cache<K, Expirable<V>> cache;
  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;

  ByteEntryStore(
      LarderConfiguration<K, V> config,
      Codec<K> keyCodec,
      Codec<V> valueCodec,
      Runnable onEviction) {
    this.keyCodec = keyCodec;
    this.valueCodec = valueCodec;
    CacheBuilder<K, Expirable<V>> builder =
        Cache.builder(keyCodec, new ExpirableCodec<>(valueCodec)).storage(config.getStorage());
    if (config.getMaximumMemory() != LarderConfiguration.UNBOUNDED) {
      builder.maximumMemory(config.getMaximumMemory());
    } else if (config.getMaximumEntries() != LarderConfiguration.UNBOUNDED) {
      builder.maximumEntries(config.getMaximumEntries());
    } else {
      builder.unbounded();
    }
    if (config.getMaximumMemory() != LarderConfiguration.UNBOUNDED
        || config.getMaximumEntries() != LarderConfiguration.UNBOUNDED) {
      // Only a bounded store evicts; an unbounded one skips the listener's decoding cost.
      builder.removalListener(
          (key, value, cause) -> {
            if (cause == RemovalCause.SIZE) {
              onEviction.run();
            }
          });
    }
    this.cache = builder.build();
  }

  @Override
  public Expirable<V> get(K key) {
    return cache.getIfPresent(key);
  }

  /** Catches the common mistake (a type that is not Serializable) without encoding anything. */
  @Override
  public void checkStorable(K key, V value) {
    requireSerializable(keyCodec, key, "key");
    requireSerializable(valueCodec, value, "value");
  }

  private static void requireSerializable(Codec<?> codec, Object object, String what) {
    if (codec instanceof SerializationCodec && !(object instanceof Serializable)) {
      throw new IllegalArgumentException(
          "store-by-value "
              + what
              + " of "
              + object.getClass().getName()
              + " is not Serializable and has no codec");
    }
  }

  @Override
  public void put(K key, Expirable<V> entry) {
    cache.put(key, entry);
  }

  @Override
  public void remove(K key) {
    cache.invalidate(key);
  }

  @Override
  public Iterator<Map.Entry<K, Expirable<V>>> iterator() {
    return cache.asMap().entrySet().iterator();
  }

  @Override
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public long size() {
    return cache.estimatedSize();
  }

  @Override
  public boolean sameValue(V stored, V expected) {
    return stored.equals(expected) || Arrays.equals(encode(stored), encode(expected));
  }

  private byte[] encode(V value) {
    ByteSink sink = new ByteSink();
    valueCodec.encodeLast(value, sink);
    return sink.toByteArray();
  }

  @Override
  public long memoryUsed() {
    return cache.memoryUsed();
  }

  @Override
  public void close() {
    cache.close();
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return type.isInstance(cache) ? type.cast(cache) : null;
  }
}
