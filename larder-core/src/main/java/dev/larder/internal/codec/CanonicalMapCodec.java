package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import java.util.Map;

/**
 * A map with its entries in canonical order ({@link CanonicalOrder}, by the keys' bytes): the wire
 * form of {@link CodecResolver#map}, so either codec decodes the other's bytes, but equal maps
 * encode alike. Deterministic when the key and value codecs are, so such maps can be keys. Each
 * encoding copies and sorts the entries' bytes, which a plain map codec does not pay.
 *
 * <p>Thread-safe when the key and value codecs are.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class CanonicalMapCodec<K, V> implements Codec<Map<K, V>> {

  private final Codec<K> keys;
  private final Codec<V> values;
  private final Codec<Map<K, V>> plain;

  /**
   * @param keys the key codec
   * @param values the value codec
   */
  public CanonicalMapCodec(Codec<K> keys, Codec<V> values) {
    this.keys = keys;
    this.values = values;
    this.plain = CodecResolver.map(keys, values);
  }

  @Override
  public void encode(Map<K, V> value, ByteSink out) {
    CanonicalOrder.EncodedEntry[] entries = CanonicalOrder.sortedEntries(value, keys, values);
    out.writeVarInt(entries.length);
    for (CanonicalOrder.EncodedEntry e : entries) {
      out.writeBytes(e.key());
      out.writeBytes(e.value());
    }
  }

  @Override
  public Map<K, V> decode(ByteSource in) {
    return plain.decode(in);
  }

  @Override
  public Class<?> type() {
    return Map.class;
  }

  @Override
  public boolean deterministic() {
    return keys.deterministic() && values.deterministic();
  }
}
