package dev.larder.internal.codec;

import dev.larder.codec.Codec;
import dev.larder.codec.CodecLookup;
import dev.larder.codec.CodecProvider;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;

/**
 * Finds the codec of a type, the way {@code Codecs.forType} documents: built-ins, then {@link
 * CodecProvider}s found by {@link ServiceLoader}, then enums and records derived from their
 * constants and components; parameterized {@code List}, {@code Collection}, {@code Set}, {@code
 * Map} and {@code Optional} compose the codecs of their arguments.
 *
 * <p>One resolver serves one top-level lookup (it remembers the records under construction, which
 * is how recursive records resolve); it is not thread-safe, the codecs it returns are.
 */
public final class CodecResolver implements CodecLookup {

  private static final Map<Class<?>, Codec<?>> BUILT_INS = builtIns();

  private final MethodHandles.Lookup lookup;
  private final Map<Class<?>, RecursiveCodec<?>> underConstruction = new HashMap<>();

  /**
   * @param lookup used to reach record accessors and constructors; null for the default
   */
  public CodecResolver(MethodHandles.Lookup lookup) {
    this.lookup = lookup;
  }

  private static Map<Class<?>, Codec<?>> builtIns() {
    Map<Class<?>, Codec<?>> m = new HashMap<>();
    m.put(Boolean.class, ScalarCodecs.BOOLEAN);
    m.put(Byte.class, ScalarCodecs.BYTE);
    m.put(Short.class, ScalarCodecs.SHORT);
    m.put(Integer.class, ScalarCodecs.INT);
    m.put(Long.class, ScalarCodecs.LONG);
    m.put(Float.class, ScalarCodecs.FLOAT);
    m.put(Double.class, ScalarCodecs.DOUBLE);
    m.put(Character.class, ScalarCodecs.CHAR);
    m.put(String.class, TextCodecs.STRING);
    m.put(byte[].class, TextCodecs.BYTES);
    m.put(Locale.class, TextCodecs.LOCALE);
    m.put(UUID.class, NumberCodecs.UUIDS);
    m.put(BigInteger.class, NumberCodecs.BIG_INTEGER);
    m.put(BigDecimal.class, NumberCodecs.BIG_DECIMAL);
    m.put(Date.class, TimeCodecs.DATE);
    m.put(Instant.class, TimeCodecs.INSTANT);
    m.put(LocalDate.class, TimeCodecs.LOCAL_DATE);
    m.put(LocalDateTime.class, TimeCodecs.LOCAL_DATE_TIME);
    return Map.copyOf(m);
  }

  /**
   * Returns the built-in codec of that exact class (primitives map to their wrappers), or null.
   *
   * @param type a class
   */
  public static Codec<?> builtIn(Class<?> type) {
    return BUILT_INS.get(type.isPrimitive() ? wrap(type) : type);
  }

  @Override
  public Codec<?> codecFor(Type type) {
    Codec<?> codec = type instanceof Class<?> c ? forClass(c) : forGeneric(type);
    if (codec == null) {
      throw new IllegalArgumentException(
          "no codec for type "
              + type.getTypeName()
              + ": pass a Codec explicitly, or register a dev.larder.codec.CodecProvider");
    }
    return codec;
  }

  private Codec<?> forClass(Class<?> c) {
    Codec<?> codec = builtIn(c);
    if (codec == null) {
      codec = fromProviders(c);
    }
    if (codec == null && c.isEnum()) {
      codec = enumCodec(c);
    }
    if (codec == null && c.isRecord()) {
      codec = recordCodec(c.asSubclass(Record.class));
    }
    return codec;
  }

  private Codec<?> forGeneric(Type type) {
    Codec<?> codec = fromProviders(type);
    if (codec != null) {
      return codec;
    }
    if (!(type instanceof ParameterizedType p) || !(p.getRawType() instanceof Class<?> raw)) {
      return null;
    }
    Type[] args = p.getActualTypeArguments();
    if (raw == List.class || raw == Collection.class) {
      return list(codecFor(args[0]));
    }
    // Derived codecs write sets and maps in canonical order, so that every derived codec is
    // deterministic and a record holding a set can be a key; Codecs.set and Codecs.map remain
    // for callers who want iteration order and no sorting.
    if (raw == Set.class) {
      return new CanonicalSetCodec<>(codecFor(args[0]));
    }
    if (raw == Map.class) {
      return new CanonicalMapCodec<>(codecFor(args[0]), codecFor(args[1]));
    }
    if (raw == Optional.class) {
      return OptionalCodecs.optional(codecFor(args[0]));
    }
    return null;
  }

  /**
   * Returns a list codec decoding to {@link ArrayList}.
   *
   * @param element element codec
   * @param <E> element type
   */
  public static <E> Codec<List<E>> list(Codec<E> element) {
    return new CollectionCodec<>(element, ArrayList::new, List.class, true);
  }

  /**
   * Returns a set codec decoding to {@link LinkedHashSet} (keeps the order written).
   *
   * @param element element codec
   * @param <E> element type
   */
  public static <E> Codec<Set<E>> set(Codec<E> element) {
    return new CollectionCodec<>(element, LinkedHashSet::newLinkedHashSet, Set.class, false);
  }

  /**
   * Returns a map codec decoding to {@link LinkedHashMap} (keeps the order written).
   *
   * @param keys key codec
   * @param values value codec
   * @param <K> key type
   * @param <V> value type
   */
  public static <K, V> Codec<Map<K, V>> map(Codec<K> keys, Codec<V> values) {
    return new MapCodec<K, V, Map<K, V>>(keys, values, LinkedHashMap::newLinkedHashMap);
  }

  private Codec<?> fromProviders(Type type) {
    for (CodecProvider provider : Providers.ALL) {
      Codec<?> codec = provider.codecFor(type, this);
      if (codec != null) {
        return codec;
      }
    }
    return null;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Codec<?> enumCodec(Class<?> c) {
    return new EnumCodec(c.asSubclass(Enum.class));
  }

  private <R extends Record> Codec<?> recordCodec(Class<R> type) {
    RecursiveCodec<?> pending = underConstruction.get(type);
    if (pending != null) {
      return pending;
    }
    RecursiveCodec<R> placeholder = new RecursiveCodec<>(type);
    underConstruction.put(type, placeholder);
    try {
      RecordCodec<R> codec = buildRecord(type);
      placeholder.bind(codec);
      return codec;
    } finally {
      underConstruction.remove(type);
    }
  }

  private <R extends Record> RecordCodec<R> buildRecord(Class<R> type) {
    List<Codec<?>> components = new ArrayList<>();
    for (RecordComponent c : type.getRecordComponents()) {
      try {
        components.add(codecFor(c.getGenericType()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            e.getMessage() + " (component '" + c.getName() + "' of record " + type.getName() + ")",
            e);
      }
    }
    return RecordAccess.codec(type, lookup, components);
  }

  private static Class<?> wrap(Class<?> primitive) {
    return MethodType.methodType(primitive).wrap().returnType();
  }

  /** The providers, loaded once on first use. */
  private static final class Providers {
    static final List<CodecProvider> ALL = load();

    private static List<CodecProvider> load() {
      List<CodecProvider> list = new ArrayList<>();
      ServiceLoader.load(CodecProvider.class).forEach(list::add);
      return List.copyOf(list);
    }
  }
}
