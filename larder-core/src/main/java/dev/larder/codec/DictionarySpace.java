package dev.larder.codec;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One named table of a {@link ValueDictionary}: ids 0, 1, 2, ... in order of addition, each with
 * the value's encoded bytes and (once a codec is bound) the decoded value.
 *
 * <p>Implementation notes. Additions happen under the dictionary's lock; lookups take no lock. An
 * addition writes the arrays' slot, then the volatile {@code count}, then the map entry, in that
 * order: a reader that reads an id below {@code count} sees the slot written (the array references
 * are replaced, when grown, before {@code count} is raised), and a reader that finds an id in the
 * map also sees {@code count} above it, as does any thread that decodes the bytes it wrote. Entries
 * are never removed or changed, which is what makes ids stable.
 */
final class DictionarySpace {

  private final String name;
  private final ConcurrentHashMap<Object, Integer> ids = new ConcurrentHashMap<>();
  private volatile Object[] values = new Object[16];
  private volatile byte[][] encoded = new byte[16][];
  private volatile int count;
  private Codec<?> codec;

  DictionarySpace(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  int size() {
    return count;
  }

  /** Returns the id of {@code value}, or -1; lock-free. */
  int idOf(Object value) {
    Integer id = ids.get(value);
    return id == null ? -1 : id;
  }

  /** Returns the value of {@code id}; lock-free. */
  Object valueOf(int id) {
    if (id < 0 || id >= count) {
      throw new CodecException(
          "unknown id "
              + Integer.toUnsignedString(id)
              + " in dictionary space '"
              + name
              + "' of "
              + count
              + " entries");
    }
    return values[id];
  }

  byte[] encodedOf(int id) {
    return encoded[id];
  }

  Codec<?> codec() {
    return codec;
  }

  /**
   * Binds the codec; entries restored as bytes are decoded now. Caller holds the lock.
   *
   * @param boundCodec the inline codec of this space's values
   */
  void bind(Codec<?> boundCodec) {
    if (codec != null) {
      if (codec.type() != boundCodec.type()) {
        throw new IllegalArgumentException(
            "dictionary space '"
                + name
                + "' holds "
                + codec.type().getName()
                + ", not "
                + boundCodec.type().getName());
      }
      return;
    }
    codec = boundCodec;
    for (int id = 0; id < count; id++) {
      Object value = decode(boundCodec, encoded[id], id);
      values[id] = value;
      ids.put(value, id);
    }
  }

  private Object decode(Codec<?> c, byte[] bytes, int id) {
    try {
      return c.decodeLast(new ByteSource(bytes));
    } catch (CodecException e) {
      throw new IllegalArgumentException(
          "entry "
              + id
              + " of dictionary space '"
              + name
              + "' does not decode as "
              + c.type().getName(),
          e);
    }
  }

  /**
   * Appends an entry. Caller holds the lock.
   *
   * @param value the decoded value, or null if no codec is bound yet
   * @param bytes its encoding (by {@link Codec#encodeLast})
   * @return the new id
   */
  int append(Object value, byte[] bytes) {
    int id = count;
    if (id == values.length) {
      values = Arrays.copyOf(values, id * 2);
      encoded = Arrays.copyOf(encoded, id * 2);
    }
    values[id] = value;
    encoded[id] = bytes;
    // count before the map entry: a thread that finds the id in the map (and any thread it
    // hands encoded bytes to) must also find id < count.
    count = id + 1;
    if (value != null) {
      ids.put(value, id);
    }
    return id;
  }

  /** Decodes a value for {@link #append} when the space is bound; caller holds the lock. */
  Object decodeIfBound(byte[] bytes, int id) {
    return codec == null ? null : decode(codec, bytes, id);
  }

  /** Returns bytes of this space's arrays and map table beyond the entries themselves. */
  long baseMemory() {
    return 64L + 2L * (16 + 4L * values.length) + 16L + 8L * Math.max(16, ids.size() * 2L);
  }
}
