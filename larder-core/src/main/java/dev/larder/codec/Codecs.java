package dev.larder.codec;

import java.util.Objects;

/**
 * The built-in codecs, and lookup of a codec by type.
 *
 * <p>All codecs returned are stateless and thread-safe.
 */
public final class Codecs {

  private Codecs() {}

  /**
   * Finds the built-in codec for a type.
   *
   * @param type the class to encode
   * @param <T> the type
   * @return its codec
   * @throws IllegalArgumentException if there is none; the message names the type
   */
  @SuppressWarnings("unchecked")
  public static <T> Codec<T> forType(Class<T> type) {
    Objects.requireNonNull(type, "type");
    Codec<?> codec = BuiltInCodecs.lookup(type);
    if (codec == null) {
      throw new IllegalArgumentException("no codec for type " + type.getName()
          + ": pass a Codec to Cache.builder(keyCodec, valueCodec)");
    }
    return (Codec<T>) codec;
  }

  /** @return byte arrays: a varint length then the bytes; no length when last */
  public static Codec<byte[]> bytes() {
    return BuiltInCodecs.BYTES;
  }

  /**
   * Strings: Latin-1 strings as one byte a char, others as UTF-8, with a varint header
   * {@code length << 1 | utf8}. Unpaired surrogates round-trip exactly (they are encoded
   * as UTF-16 code units in that case).
   *
   * @return the string codec
   */
  public static Codec<String> strings() {
    return BuiltInCodecs.STRINGS;
  }

  /** @return longs as zig-zag varints (1 byte for -64..63, at most 10) */
  public static Codec<Long> longs() {
    return BuiltInCodecs.LONGS;
  }

  /** @return ints as zig-zag varints (1 byte for -64..63, at most 5) */
  public static Codec<Integer> integers() {
    return BuiltInCodecs.INTEGERS;
  }

}
