package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;

/**
 * Puts the parts of a set or map in canonical order: ascending unsigned lexicographic order of
 * their encoded bytes (docs/spec/codecs.md, "Collections"). Equal sets hold equal elements, and a
 * deterministic codec gives equal elements equal bytes, so sorting by bytes gives equal sets the
 * same encoding whatever order they iterate in.
 *
 * <p>Stateless; thread-safe.
 */
final class CanonicalOrder {

  private static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

  private CanonicalOrder() {}

  /**
   * Returns each element's encoding, sorted.
   *
   * @param values the collection's elements
   * @param codec their codec
   * @param <E> element type
   * @throws CodecException if the collection changes size while being encoded
   */
  static <E> byte[][] sortedElements(Collection<E> values, Codec<E> codec) {
    ByteSink scratch = new ByteSink();
    byte[][] encoded = new byte[values.size()][];
    int written = 0;
    for (E value : values) {
      if (written == encoded.length) {
        throw new CodecException("collection changed size while being encoded");
      }
      encoded[written++] = encodeOne(codec, value, scratch);
    }
    if (written != encoded.length) {
      throw new CodecException("collection changed size while being encoded");
    }
    Arrays.sort(encoded, UNSIGNED);
    return encoded;
  }

  /**
   * Returns each entry's key and value encodings, sorted by key bytes (then by value bytes, so that
   * even a key codec that maps two keys to the same bytes leaves no order to chance).
   *
   * @param map the map
   * @param keys its key codec
   * @param values its value codec
   * @param <K> key type
   * @param <V> value type
   * @throws CodecException if the map changes size while being encoded
   */
  static <K, V> EncodedEntry[] sortedEntries(Map<K, V> map, Codec<K> keys, Codec<V> values) {
    ByteSink scratch = new ByteSink();
    EncodedEntry[] encoded = new EncodedEntry[map.size()];
    int written = 0;
    for (Map.Entry<K, V> e : map.entrySet()) {
      if (written == encoded.length) {
        throw new CodecException("map changed size while being encoded");
      }
      encoded[written++] =
          new EncodedEntry(
              encodeOne(keys, e.getKey(), scratch), encodeOne(values, e.getValue(), scratch));
    }
    if (written != encoded.length) {
      throw new CodecException("map changed size while being encoded");
    }
    Arrays.sort(
        encoded,
        Comparator.comparing(EncodedEntry::key, UNSIGNED)
            .thenComparing(EncodedEntry::value, UNSIGNED));
    return encoded;
  }

  private static <T> byte[] encodeOne(Codec<T> codec, T value, ByteSink scratch) {
    scratch.reset();
    codec.encode(value, scratch);
    return scratch.toByteArray();
  }

  /**
   * One map entry's encodings.
   *
   * @param key the key's bytes
   * @param value the value's bytes
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record EncodedEntry(byte[] key, byte[] value) {}
}
