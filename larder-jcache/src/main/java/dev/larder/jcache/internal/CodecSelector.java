package dev.larder.jcache.internal;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.lang.reflect.Modifier;
import java.util.Locale;

/**
 * Chooses the codec of a store-by-value cache's keys or values: the configured one, else the
 * built-in codec of the declared type when it has one and the type is final (or an enum), else Java
 * serialization (which any {@link java.io.Serializable} value survives, as store-by-value
 * requires).
 */
final class CodecSelector {

  private CodecSelector() {}

  /**
   * Returns the codec to use.
   *
   * @param configured the codec from the configuration, or null
   * @param declaredType the configured key or value type
   * @param classLoader resolves classes when deserializing
   * @param <T> the type
   */
  @SuppressWarnings("unchecked")
  static <T> Codec<T> select(Codec<T> configured, Class<T> declaredType, ClassLoader classLoader) {
    if (configured != null) {
      return configured;
    }
    // Only for final types: a built-in codec writes the declared type's shape, so it would turn
    // an instance of a subclass into the declared class, which store-by-value must not do.
    if (Modifier.isFinal(declaredType.getModifiers()) || declaredType.isEnum()) {
      try {
        return Codecs.forType(declaredType);
      } catch (RuntimeException noCodec) {
        // No codec can be derived (no built-in, or a record with a component Larder cannot
        // encode, or one it may not access): serialization still stores the value faithfully.
      }
    }
    return (Codec<T>) new SerializationCodec<>(declaredType, classLoader);
  }

  /**
   * Returns the codec, or null if the name is not a built-in one.
   *
   * @param name a built-in codec's name in the configuration file
   * @param classLoader for the serialization codec
   */
  static Codec<?> byName(String name, ClassLoader classLoader) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "string" -> Codecs.strings();
      case "long" -> Codecs.longs();
      case "integer" -> Codecs.integers();
      case "bytes" -> Codecs.bytes();
      case "serialization" -> new SerializationCodec<>(Object.class, classLoader);
      default -> null;
    };
  }
}
