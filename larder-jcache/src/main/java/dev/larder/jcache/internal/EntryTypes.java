package dev.larder.jcache.internal;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.jcache.LarderConfiguration;
import java.util.Set;

/**
 * The classes a cache accepts as keys and values, checked before any operation reaches a codec, so
 * that a misfit fails with a {@link ClassCastException} naming the cache, the type expected and the
 * class given, instead of a bare one from deep inside a codec.
 *
 * <p>The expected type is the configured key or value type; when that is {@code Object} and a
 * built-in codec is configured ({@code string}, {@code long}, {@code integer}, {@code bytes}), the
 * codec's type, which those codecs state exactly. Other codecs are not second-guessed. Immutable
 * and thread-safe.
 */
final class EntryTypes {

  /** Spring's marker for a cached null (a Serializable singleton), named in hints. */
  private static final String SPRING_NULL_VALUE = "org.springframework.cache.support.NullValue";

  private static final Set<Codec<?>> EXACT_CODECS =
      Set.of(Codecs.strings(), Codecs.longs(), Codecs.integers(), Codecs.bytes());

  private final String cacheName;
  private final Class<?> keys;
  private final String keysFrom;
  private final Class<?> values;
  private final String valuesFrom;

  private EntryTypes(
      String cacheName, Class<?> keys, String keysFrom, Class<?> values, String valuesFrom) {
    this.cacheName = cacheName;
    this.keys = keys;
    this.keysFrom = keysFrom;
    this.values = values;
    this.valuesFrom = valuesFrom;
  }

  /**
   * Returns the types it accepts.
   *
   * @param cacheName the cache's name, for messages
   * @param config its configuration
   */
  static EntryTypes of(String cacheName, LarderConfiguration<?, ?> config) {
    boolean byValue = config.isStoreByValue();
    Codec<?> keyCodec = byValue ? config.getKeyCodec() : null;
    Codec<?> valueCodec = byValue ? config.getValueCodec() : null;
    boolean keyFromCodec = config.getKeyType() == Object.class && isExact(keyCodec);
    boolean valueFromCodec = config.getValueType() == Object.class && isExact(valueCodec);
    return new EntryTypes(
        cacheName,
        keyFromCodec ? keyCodec.type() : config.getKeyType(),
        keyFromCodec ? "the key codec's type" : "the configured key type",
        valueFromCodec ? valueCodec.type() : config.getValueType(),
        valueFromCodec ? "the value codec's type" : "the configured value type");
  }

  private static boolean isExact(Codec<?> codec) {
    return codec != null && EXACT_CODECS.contains(codec); // Set.of refuses to look up null
  }

  /**
   * @param key a non-null key
   * @throws ClassCastException if the cache does not accept its class
   */
  void checkKey(Object key) {
    if (keys != Object.class && !keys.isInstance(key)) {
      throw misfit("key", key, keys, keysFrom);
    }
  }

  /**
   * @param value a non-null value
   * @throws ClassCastException if the cache does not accept its class
   */
  void checkValue(Object value) {
    if (values != Object.class && !values.isInstance(value)) {
      throw misfit("value", value, values, valuesFrom);
    }
  }

  private ClassCastException misfit(String what, Object given, Class<?> expected, String from) {
    String message =
        "cache '"
            + cacheName
            + "': a "
            + what
            + " of class "
            + given.getClass().getName()
            + " is not a "
            + expected.getName()
            + ", "
            + from;
    if (given.getClass().getName().equals(SPRING_NULL_VALUE)) {
      message +=
          " (it is Spring's marker for a cached null: disable null caching for this"
              + " cache, or leave its valueType unset; see larder-jcache's README, \"Spring\")";
    }
    return new ClassCastException(message);
  }
}
