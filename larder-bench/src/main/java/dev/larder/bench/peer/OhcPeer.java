package dev.larder.bench.peer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * OHC (off-heap cache) with its default linked implementation and LRU eviction, bounded by {@code
 * capacity} in bytes. Keys and values pass through small serializers (String as UTF-8, Long as 8
 * bytes, byte[] as is, other values as codec bytes), as OHC requires.
 */
final class OhcPeer implements Peer {

  /** Per-entry allowance used to size the capacity from an entry bound. */
  private static final int ALLOWANCE = 64;

  /** Capacity when the scenario wants no eviction: far more than any run stores. */
  private static final long UNBOUNDED_CAPACITY = 256L << 30;

  @Override
  public String name() {
    return "OHC";
  }

  @Override
  public boolean offHeap() {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, V> CacheFamily<K, V> family(CacheSpec<K, V> spec) {
    CacheSerializer<K> keys = (CacheSerializer<K>) keySerializer(spec.keyType());
    long capacity = spec.unbounded() ? UNBOUNDED_CAPACITY : spec.byteBudget(ALLOWANCE);
    if (spec.valueType() == byte[].class) {
      return SimpleFamily.of(
          name -> new OhcCache<>(build(keys, (CacheSerializer<V>) BYTES, capacity)));
    }
    return SimpleFamily.of(
        name ->
            new EncodingCache<>(new OhcCache<>(build(keys, BYTES, capacity)), spec.valueCodec()));
  }

  private static <K, V> OHCache<K, V> build(
      CacheSerializer<K> keys, CacheSerializer<V> values, long capacity) {
    return OHCacheBuilder.<K, V>newBuilder()
        .keySerializer(keys)
        .valueSerializer(values)
        .capacity(capacity)
        .build();
  }

  private static CacheSerializer<?> keySerializer(Class<?> type) {
    return type == Long.class ? LONGS : STRINGS;
  }

  private record OhcCache<K, V>(OHCache<K, V> cache) implements BenchCache<K, V> {

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
      return cache.size();
    }

    @Override
    public OptionalLong reportedBytes() {
      return OptionalLong.of(cache.memUsed());
    }

    @Override
    public void close() {
      try {
        cache.close();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  private static final CacheSerializer<byte[]> BYTES =
      new CacheSerializer<>() {
        @Override
        public void serialize(byte[] value, ByteBuffer buf) {
          buf.putInt(value.length).put(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer buf) {
          byte[] b = new byte[buf.getInt()];
          buf.get(b);
          return b;
        }

        @Override
        public int serializedSize(byte[] value) {
          return 4 + value.length;
        }
      };

  private static final CacheSerializer<String> STRINGS =
      new CacheSerializer<>() {
        @Override
        public void serialize(String value, ByteBuffer buf) {
          BYTES.serialize(value.getBytes(StandardCharsets.UTF_8), buf);
        }

        @Override
        public String deserialize(ByteBuffer buf) {
          return new String(BYTES.deserialize(buf), StandardCharsets.UTF_8);
        }

        @Override
        public int serializedSize(String value) {
          return 4 + value.getBytes(StandardCharsets.UTF_8).length;
        }
      };

  private static final CacheSerializer<Long> LONGS =
      new CacheSerializer<>() {
        @Override
        public void serialize(Long value, ByteBuffer buf) {
          buf.putLong(value);
        }

        @Override
        public Long deserialize(ByteBuffer buf) {
          return buf.getLong();
        }

        @Override
        public int serializedSize(Long value) {
          return 8;
        }
      };
}
