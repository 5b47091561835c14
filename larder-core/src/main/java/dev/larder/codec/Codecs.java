package dev.larder.codec;

import dev.larder.internal.codec.CanonicalMapCodec;
import dev.larder.internal.codec.CanonicalSetCodec;
import dev.larder.internal.codec.CodecResolver;
import dev.larder.internal.codec.CollectionCodec;
import dev.larder.internal.codec.EnumCodec;
import dev.larder.internal.codec.JavaSerializationCodec;
import dev.larder.internal.codec.MapCodec;
import dev.larder.internal.codec.NumberCodecs;
import dev.larder.internal.codec.OptionalCodecs;
import dev.larder.internal.codec.ScalarCodecs;
import dev.larder.internal.codec.TextCodecs;
import dev.larder.internal.codec.TimeCodecs;
import java.io.ObjectInputFilter;
import java.io.Serializable;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * The built-in codecs, their composition, and lookup of a codec by type. Every wire form is
 * specified, with its version, in docs/spec/codecs.md.
 *
 * <p>All codecs returned are thread-safe. Unless stated otherwise they reject null values with
 * {@link NullPointerException}; wrap them in {@link #nullable} to allow null.
 */
public final class Codecs {

  /** The version of the wire forms of docs/spec/codecs.md that these codecs write. */
  public static final int WIRE_FORM_VERSION = 1;

  private Codecs() {}

  /**
   * Finds the codec for a class: a built-in codec (primitives, their wrappers, String, byte[],
   * UUID, Date, Instant, LocalDate, LocalDateTime, BigDecimal, BigInteger, Locale), else one from a
   * {@link CodecProvider}, else one derived for an enum or a record (recursively, from its
   * components' generic types: records, lists, sets, maps and optionals of them).
   *
   * @param type the class to encode
   * @param <T> the type
   * @return its codec
   * @throws IllegalArgumentException if there is none; the message names the type, and the record
   *     component that needed it
   */
  @SuppressWarnings("unchecked")
  public static <T> Codec<T> forType(Class<T> type) {
    return (Codec<T>) forGenericType(type);
  }

  /**
   * Finds the codec for a generic type such as {@code Map<String, List<Point>>}, as {@link
   * #forType} does for classes. {@code List} and {@code Collection} decode to {@link
   * java.util.ArrayList}; {@code Set} and {@code Map} to their linked hash versions, and are
   * written in canonical order ({@link #canonicalSet}, {@link #canonicalMap}), so derived codecs,
   * records' included, are deterministic and can encode keys.
   *
   * @param type a class or parameterized type
   * @return its codec
   * @throws IllegalArgumentException if there is none; the message names the type
   */
  public static Codec<?> forGenericType(Type type) {
    Objects.requireNonNull(type, "type");
    return new CodecResolver(null).codecFor(type);
  }

  /** Returns booleans as one byte, 0 or 1. */
  public static Codec<Boolean> booleans() {
    return ScalarCodecs.BOOLEAN;
  }

  /** Returns bytes as one byte. */
  public static Codec<Byte> byteValues() {
    return ScalarCodecs.BYTE;
  }

  /** Returns shorts as zig-zag varints (1 to 3 bytes). */
  public static Codec<Short> shorts() {
    return ScalarCodecs.SHORT;
  }

  /** Returns ints as zig-zag varints (1 byte for -64..63, at most 5). */
  public static Codec<Integer> integers() {
    return ScalarCodecs.INT;
  }

  /** Returns longs as zig-zag varints (1 byte for -64..63, at most 10). */
  public static Codec<Long> longs() {
    return ScalarCodecs.LONG;
  }

  /** Returns floats as their raw IEEE 754 bits, 4 bytes (NaN payloads and -0.0 survive). */
  public static Codec<Float> floats() {
    return ScalarCodecs.FLOAT;
  }

  /** Returns doubles as their raw IEEE 754 bits, 8 bytes. */
  public static Codec<Double> doubles() {
    return ScalarCodecs.DOUBLE;
  }

  /** Returns chars as the varint of their UTF-16 code unit (any unit, paired or not). */
  public static Codec<Character> chars() {
    return ScalarCodecs.CHAR;
  }

  /** Returns byte arrays: a varint length then the bytes; no length when last. */
  public static Codec<byte[]> bytes() {
    return TextCodecs.BYTES;
  }

  /**
   * Strings: Latin-1 strings as one byte a char, others as UTF-8, with a varint header {@code
   * length << 1 | utf8}. Unpaired surrogates round-trip exactly (they are encoded as UTF-16 code
   * units in that case).
   *
   * @return the string codec
   */
  public static Codec<String> strings() {
    return TextCodecs.STRING;
  }

  /** Returns UUIDs as 16 bytes. */
  public static Codec<UUID> uuids() {
    return NumberCodecs.UUIDS;
  }

  /** Returns {@link Date}s as a zig-zag varint of epoch milliseconds (6 bytes for today). */
  public static Codec<Date> dates() {
    return TimeCodecs.DATE;
  }

  /** Returns instants as zig-zag epoch seconds and varint nanoseconds. */
  public static Codec<Instant> instants() {
    return TimeCodecs.INSTANT;
  }

  /** Returns local dates as a zig-zag varint of the epoch day. */
  public static Codec<LocalDate> localDates() {
    return TimeCodecs.LOCAL_DATE;
  }

  /** Returns local date-times as the epoch day and the nanosecond of the day. */
  public static Codec<LocalDateTime> localDateTimes() {
    return TimeCodecs.LOCAL_DATE_TIME;
  }

  /** Returns big integers as a varint length and two's-complement bytes. */
  public static Codec<BigInteger> bigIntegers() {
    return NumberCodecs.BIG_INTEGER;
  }

  /** Returns big decimals as a zig-zag scale and the unscaled big integer. */
  public static Codec<BigDecimal> bigDecimals() {
    return NumberCodecs.BIG_DECIMAL;
  }

  /** Returns locales as their language tag (or language, country, variant for legacy ones). */
  public static Codec<Locale> locales() {
    return TextCodecs.LOCALE;
  }

  /**
   * Returns constants as the varint of their ordinal (append constants, never reorder).
   *
   * @param type the enum class
   * @param <E> the enum type
   */
  public static <E extends Enum<E>> Codec<E> enums(Class<E> type) {
    return new EnumCodec<>(Objects.requireNonNull(type, "type"));
  }

  /**
   * Derives a record's codec from its components, resolved as {@link #forGenericType} does. Method
   * handles for the accessors and the canonical constructor are made once, here.
   *
   * @param type the record class; public, or in a package open to this module
   * @param <R> the record type
   * @return its codec
   * @throws IllegalArgumentException if a component has no codec (naming it) or the record is not
   *     accessible
   */
  public static <R extends Record> Codec<R> record(Class<R> type) {
    return forType(Objects.requireNonNull(type, "type"));
  }

  /**
   * Derives a record's codec using the caller's lookup, for records this module cannot reach
   * (package-private records, or modules that do not open their package).
   *
   * @param type the record class
   * @param lookup a lookup with access to the record, typically {@code MethodHandles.lookup()}
   * @param <R> the record type
   * @return its codec
   * @throws IllegalArgumentException if a component has no codec or access is denied
   */
  @SuppressWarnings("unchecked")
  public static <R extends Record> Codec<R> record(Class<R> type, MethodHandles.Lookup lookup) {
    Objects.requireNonNull(lookup, "lookup");
    return (Codec<R>) new CodecResolver(lookup).codecFor(Objects.requireNonNull(type, "type"));
  }

  /**
   * Returns lists as a varint count and the elements; decodes to {@link java.util.ArrayList}.
   *
   * @param element the element codec
   * @param <E> element type
   */
  public static <E> Codec<List<E>> list(Codec<E> element) {
    return CodecResolver.list(Objects.requireNonNull(element, "element"));
  }

  /**
   * Returns sets as a varint count and the elements in iteration order; decodes to {@link
   * java.util.LinkedHashSet}. Not deterministic: equal sets may iterate differently, so this codec
   * cannot encode keys ({@link #canonicalSet} can).
   *
   * @param element the element codec
   * @param <E> element type
   */
  public static <E> Codec<Set<E>> set(Codec<E> element) {
    return CodecResolver.set(Objects.requireNonNull(element, "element"));
  }

  /**
   * Sets that encode alike when they are equal, whatever order they iterate in: the wire form of
   * {@link #set}, with the elements in ascending unsigned order of their encoded bytes. Use it
   * where a set is (part of) a key. Each encoding copies and sorts the elements' bytes.
   *
   * @param element the element codec
   * @param <E> element type
   * @return the codec; {@linkplain Codec#deterministic() deterministic} when {@code element} is;
   *     decodes to {@link java.util.LinkedHashSet}
   */
  public static <E> Codec<Set<E>> canonicalSet(Codec<E> element) {
    return new CanonicalSetCodec<>(Objects.requireNonNull(element, "element"));
  }

  /**
   * A collection codec decoding into collections of the caller's choice.
   *
   * @param element the element codec
   * @param factory makes an empty collection, given the number of elements to come
   * @param type the collection type, for messages
   * @param <E> element type
   * @param <C> collection type
   * @return the codec (same wire form as {@link #list}); deterministic only for lists
   */
  public static <E, C extends Collection<E>> Codec<C> collection(
      Codec<E> element, IntFunction<? extends C> factory, Class<?> type) {
    return new CollectionCodec<>(
        Objects.requireNonNull(element, "element"),
        Objects.requireNonNull(factory, "factory"),
        type,
        List.class.isAssignableFrom(type));
  }

  /**
   * Returns maps as a varint count and each key and value, in iteration order; decodes to {@link
   * java.util.LinkedHashMap}. Not deterministic, so this codec cannot encode keys ({@link
   * #canonicalMap} can).
   *
   * @param keys the key codec
   * @param values the value codec
   * @param <K> key type
   * @param <V> value type
   */
  public static <K, V> Codec<Map<K, V>> map(Codec<K> keys, Codec<V> values) {
    return CodecResolver.map(
        Objects.requireNonNull(keys, "keys"), Objects.requireNonNull(values, "values"));
  }

  /**
   * Maps that encode alike when they are equal, whatever order they iterate in: the wire form of
   * {@link #map}, with the entries in ascending unsigned order of their keys' encoded bytes. Use it
   * where a map is (part of) a key. Each encoding copies and sorts the entries' bytes.
   *
   * @param keys the key codec
   * @param values the value codec
   * @param <K> key type
   * @param <V> value type
   * @return the codec; {@linkplain Codec#deterministic() deterministic} when both codecs are;
   *     decodes to {@link java.util.LinkedHashMap}
   */
  public static <K, V> Codec<Map<K, V>> canonicalMap(Codec<K> keys, Codec<V> values) {
    return new CanonicalMapCodec<>(
        Objects.requireNonNull(keys, "keys"), Objects.requireNonNull(values, "values"));
  }

  /**
   * A map codec decoding into maps of the caller's choice (same wire form as {@link #map}).
   *
   * @param keys the key codec
   * @param values the value codec
   * @param factory makes an empty map, given the number of entries to come
   * @param <K> key type
   * @param <V> value type
   * @param <M> map type
   * @return the codec
   */
  public static <K, V, M extends Map<K, V>> Codec<M> map(
      Codec<K> keys, Codec<V> values, IntFunction<? extends M> factory) {
    return new MapCodec<>(
        Objects.requireNonNull(keys, "keys"),
        Objects.requireNonNull(values, "values"),
        Objects.requireNonNull(factory, "factory"));
  }

  /**
   * Returns optionals as a presence byte and the value.
   *
   * @param inner the codec of present values
   * @param <T> value type
   */
  public static <T> Codec<Optional<T>> optional(Codec<T> inner) {
    return OptionalCodecs.optional(Objects.requireNonNull(inner, "inner"));
  }

  /**
   * Returns a codec that also accepts (and decodes to) null, as a presence byte and the value.
   *
   * @param inner the codec of non-null values
   * @param <T> value type
   */
  public static <T> Codec<T> nullable(Codec<T> inner) {
    return OptionalCodecs.nullable(Objects.requireNonNull(inner, "inner"));
  }

  /**
   * Java serialization, for legacy types that have no other codec; only ever on request. The bytes
   * carry class names and are several times larger and slower than a derived codec's.
   * Deserialization admits {@code type}, the classes of its package and the value classes of
   * java.base, with limits derived from the input's length. As a key codec it needs a type whose
   * serialized form depends on its state alone: one holding a hash-ordered collection may serialize
   * equal values differently, and such keys would miss.
   *
   * @param type the type of values
   * @param <T> the type
   * @return the codec
   */
  public static <T extends Serializable> Codec<T> javaSerialization(Class<T> type) {
    return new JavaSerializationCodec<>(type, JavaSerializationCodec.defaultFilter(type));
  }

  /**
   * Java serialization with the caller's deserialization filter (combined with the length limits).
   *
   * @param type the type of values
   * @param allowed decides which classes may be deserialized
   * @param <T> the type
   * @return the codec
   */
  public static <T extends Serializable> Codec<T> javaSerialization(
      Class<T> type, ObjectInputFilter allowed) {
    return new JavaSerializationCodec<>(
        Objects.requireNonNull(type, "type"), Objects.requireNonNull(allowed, "allowed"));
  }
}
