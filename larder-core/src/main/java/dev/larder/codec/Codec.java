package dev.larder.codec;

/**
 * Turns values of one type into bytes and back. Larder stores keys and values only as the bytes
 * their codecs produce, so a codec defines both the memory an entry costs and key equality: two
 * keys are the same key exactly when their encoded bytes are equal.
 *
 * <p>Contract for implementations:
 *
 * <ul>
 *   <li>{@code decode(encode(v))} is equal to {@code v}, and encoding is deterministic: equal
 *       values produce equal bytes (required for keys).
 *   <li>The bytes carry no structural metadata (no class or field names); the codec knows the
 *       shape.
 *   <li>{@link #decode} must treat its input as untrusted: on truncated or corrupted bytes it
 *       throws {@link CodecException} (the {@link ByteSource} reads do this for it) and never loops
 *       or allocates beyond what the input can hold.
 *   <li>Codecs are shared by all threads of a cache and must be thread-safe; stateless codecs are
 *       trivially so.
 *   <li>Values passed to {@link #encode} are never null; nullable values need a wrapping codec
 *       ({@link Codecs#nullable}).
 *   <li>Every encoding is at least one byte long. Container codecs rely on this to bound an element
 *       count read from corrupted input by the bytes that remain.
 * </ul>
 *
 * @param <T> the type encoded
 */
public interface Codec<T> {

  /**
   * Appends the encoded form of {@code value} to {@code out}.
   *
   * @param value the value, never null
   * @param out where the bytes go
   * @throws CodecException if the value cannot be encoded
   */
  void encode(T value, ByteSink out);

  /**
   * Reads one value from {@code in}, consuming exactly the bytes {@link #encode} wrote.
   *
   * @param in the bytes, positioned at the start of a value
   * @return the value, never null
   * @throws CodecException if the bytes are not a valid encoding
   */
  T decode(ByteSource in);

  /**
   * Encodes {@code value} as the last thing in its input, so the reader knows where it ends and the
   * codec may leave out its own length. The store uses this for whole keys and values; composite
   * codecs may use it for their last component. The default is {@link #encode}.
   *
   * @param value the value, never null
   * @param out where the bytes go
   */
  default void encodeLast(T value, ByteSink out) {
    encode(value, out);
  }

  /**
   * Reads a value written by {@link #encodeLast}, consuming all remaining input.
   *
   * @param in the bytes; all of the remaining input belongs to this value
   * @return the value
   * @throws CodecException if the bytes are not a valid encoding or input remains unread
   */
  default T decodeLast(ByteSource in) {
    T value = decode(in);
    if (!in.exhausted()) {
      throw new CodecException(in.remaining() + " trailing bytes after " + type().getName());
    }
    return value;
  }

  /**
   * The type this codec handles, used in error messages and codec lookup.
   *
   * @return the encoded type
   */
  Class<?> type();

  /**
   * Whether equal values always produce equal bytes, at any time and on any thread. Keys need a
   * deterministic codec, because the store compares keys by their bytes. Codecs that substitute
   * values through an adaptive or bounded {@link ValueDictionary} are not: the same value is
   * written inline before it is interned and as an id afterwards. Composite codecs are
   * deterministic when all their parts are. The default is {@code true}.
   *
   * @return true if the encoding of a value never changes
   */
  default boolean deterministic() {
    return true;
  }

  /**
   * Whether the values this codec decodes can never change: no method of a decoded value, nor of
   * anything reachable from it, alters what it holds. The cache may then keep one decoded instance
   * of a frequently read entry and hand that same instance to every caller that reads the key (its
   * hot tier, see {@link dev.larder.CacheBuilder#hotTier}), instead of decoding a fresh copy for
   * each. Strings, boxed primitives, enums, {@code java.time} values, UUID, BigDecimal, BigInteger,
   * Locale, and records and unmodifiable collections of such values are immutable; {@code byte[]}
   * and other arrays, {@link java.util.Date}, and ordinary beans and collections are not. A codec
   * that answers true although a caller could change a decoded value lets one caller's change be
   * seen by every other reader of that key.
   *
   * <p>A key codec that answers true also lets the hot tier find keys by their {@code equals} and
   * {@code hashCode}: these must agree with the encoded bytes (two keys are equal exactly when
   * their encodings are), which the round trip and {@link #deterministic()} already ask of a key
   * codec. Composite codecs are immutable when all their parts are and what they build is (a
   * derived record codec computes it from its components). The default is {@code false}.
   *
   * @return true if decoded values, and everything reachable from them, cannot change
   */
  default boolean immutable() {
    return false;
  }
}
