package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A map: varint count, then key and value of each entry in iteration order (docs/spec/codecs.md,
 * "Collections"). Counts are checked against the bytes remaining (two bytes at least an entry)
 * before anything is allocated.
 *
 * @param <K> key type
 * @param <V> value type
 * @param <M> map type
 */
public final class MapCodec<K, V, M extends Map<K, V>> implements Codec<M> {

  private final Codec<K> keys;
  private final Codec<V> values;
  private final IntFunction<? extends M> factory;

  /**
   * @param keys the key codec
   * @param values the value codec
   * @param factory makes an empty map for a given number of entries
   */
  public MapCodec(Codec<K> keys, Codec<V> values, IntFunction<? extends M> factory) {
    this.keys = keys;
    this.values = values;
    this.factory = factory;
  }

  @Override
  public void encode(M value, ByteSink out) {
    out.writeVarInt(value.size());
    int written = 0;
    for (Map.Entry<K, V> e : value.entrySet()) {
      keys.encode(e.getKey(), out);
      values.encode(e.getValue(), out);
      written++;
    }
    if (written != value.size()) {
      throw new CodecException("map changed size while being encoded");
    }
  }

  @Override
  public M decode(ByteSource in) {
    int count = in.readLength(2);
    M result = factory.apply(count);
    for (int i = 0; i < count; i++) {
      K key = CollectionCodec.decodeElement(keys, in);
      result.put(key, CollectionCodec.decodeElement(values, in));
    }
    return result;
  }

  @Override
  public Class<?> type() {
    return Map.class;
  }

  /** Maps iterate in an order that equal maps need not share, so their bytes may differ. */
  @Override
  public boolean deterministic() {
    return false;
  }
}
