package dev.larder.bench.peer;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import java.util.OptionalLong;

/**
 * Stores values as the bytes of a codec in a cache of byte arrays: how the off-heap peers hold
 * values that are objects (each of them needs a serializer, and their documentation recommends a
 * compact custom one over Java serialization).
 *
 * @param <K> key type
 * @param <V> value type
 */
final class EncodingCache<K, V> implements BenchCache<K, V> {

  private final BenchCache<K, byte[]> bytes;
  private final Codec<V> codec;

  EncodingCache(BenchCache<K, byte[]> bytes, Codec<V> codec) {
    this.bytes = bytes;
    this.codec = codec;
  }

  @Override
  public V get(K key) {
    byte[] b = bytes.get(key);
    return b == null ? null : codec.decodeLast(new ByteSource(b));
  }

  @Override
  public void put(K key, V value) {
    ByteSink sink = new ByteSink(256);
    codec.encodeLast(value, sink);
    bytes.put(key, sink.toByteArray());
  }

  @Override
  public long size() {
    return bytes.size();
  }

  @Override
  public OptionalLong reportedBytes() {
    return bytes.reportedBytes();
  }

  @Override
  public void close() {
    bytes.close();
  }
}
