package dev.larder.spring;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cache.interceptor.SimpleKey;

/**
 * The canonical encoding of Spring cache keys of any type: what {@code @Cacheable}'s default key
 * generator makes ({@link SimpleKey} for methods with no or several parameters, the argument itself
 * for one), for caches whose {@code key-type} is {@code java.lang.Object} (the default), {@code
 * java.io.Serializable} or {@code SimpleKey}. The wire form, version {@value #WIRE_FORM_VERSION},
 * is drawn in docs/spec/codecs.md ("Spring cache keys").
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The store finds keys by their bytes, so the one property that matters is that keys Spring
 * calls equal encode alike, and keys it calls unequal encode differently. Each value starts with a
 * tag byte naming its kind (a class name only for records and enums), so {@code 1} and {@code 1L},
 * unequal in Java, differ in bytes. Equality follows each kind's own:
 *
 * <ul>
 *   <li>{@code Float} and {@code Double} by {@code floatToIntBits}/{@code doubleToLongBits}, as
 *       their {@code equals}: every NaN is one key, {@code 0.0} and {@code -0.0} two;
 *   <li>any {@code List} by its elements in order, any {@code Set} by its elements in the ascending
 *       order of their encodings, any {@code Map} by its entries in the order of their keys'
 *       encodings: the {@code equals} of these interfaces ignores the implementation class and, for
 *       sets and maps, the iteration order;
 *   <li>arrays by content only where Spring compares them so: at the top and inside {@code
 *       SimpleKey} and other arrays ({@code Arrays.deepEquals}). All reference arrays share one
 *       tag, as {@code deepEquals} calls a {@code String[]} and an {@code Object[]} of equal
 *       elements equal. Inside a list, set, map or record an array compares by identity, so such a
 *       key is refused rather than given a content encoding that would make unequal keys collide;
 *   <li>records through Larder's record codec, refused if any component type holds an array (record
 *       equality compares arrays by identity).
 * </ul>
 *
 * <p>Any other type is refused with an {@link IllegalArgumentException} that names the cache, the
 * type and the fixes. Decoding treats its input as untrusted: nesting is limited to {@value
 * #MAX_DEPTH} levels, counts are bounded by the bytes left, and a class name is loaded without
 * initialising it and accepted only if it is a record or an enum.
 *
 * <p>Thread-safe: the only state is a concurrent map of record codecs.
 */
final class SpringKeyCodec implements Codec<Object> {

  /** The version of the wire form in docs/spec/codecs.md. */
  static final int WIRE_FORM_VERSION = 1;

  static final int MAX_DEPTH = 256;

  // Tags, as docs/spec/codecs.md lists them. Never reuse or renumber one: stored keys hold them.
  static final int NULL = 0x00;
  static final int SIMPLE_KEY = 0x01;
  static final int STRING = 0x02;
  static final int BOOLEAN = 0x03;
  static final int BYTE = 0x04;
  static final int SHORT = 0x05;
  static final int INT = 0x06;
  static final int LONG = 0x07;
  static final int FLOAT = 0x08;
  static final int DOUBLE = 0x09;
  static final int CHAR = 0x0A;
  static final int BIG_INTEGER = 0x0B;
  static final int BIG_DECIMAL = 0x0C;
  static final int UUID_TAG = 0x0D;
  static final int INSTANT = 0x0E;
  static final int LOCAL_DATE = 0x0F;
  static final int LOCAL_DATE_TIME = 0x10;
  static final int ENUM = 0x11;
  static final int RECORD = 0x12;
  static final int LIST = 0x13;
  static final int SET = 0x14;
  static final int MAP = 0x15;
  static final int OBJECT_ARRAY = 0x16;
  static final int BYTE_ARRAY = 0x17;
  static final int SHORT_ARRAY = 0x18;
  static final int INT_ARRAY = 0x19;
  static final int LONG_ARRAY = 0x1A;
  static final int CHAR_ARRAY = 0x1B;
  static final int BOOLEAN_ARRAY = 0x1C;
  static final int FLOAT_ARRAY = 0x1D;
  static final int DOUBLE_ARRAY = 0x1E;

  private static final VarHandle SIMPLE_KEY_PARAMS = simpleKeyParams();

  private final String cacheName;
  private final String property;
  private final ClassLoader classLoader;
  private final Map<Class<?>, Codec<Object>> recordCodecs = new ConcurrentHashMap<>();

  /**
   * @param cacheName the cache's name, for messages
   * @param property the {@code key-type} property that chose this codec, for messages
   * @param classLoader loads the record and enum classes named in stored keys
   */
  SpringKeyCodec(String cacheName, String property, ClassLoader classLoader) {
    this.cacheName = cacheName;
    this.property = property;
    this.classLoader = classLoader;
  }

  @Override
  public void encode(Object key, ByteSink out) {
    write(key, out, true, 0);
  }

  @Override
  public Object decode(ByteSource in) {
    return read(in, 0);
  }

  @Override
  public Class<?> type() {
    return Object.class;
  }

  // ---- encoding ----

  /**
   * @param arraysByContent whether an array here compares by content (top level, SimpleKey and
   *     array elements) rather than by identity (list, set, map and record elements)
   */
  private void write(Object v, ByteSink out, boolean arraysByContent, int depth) {
    if (depth > MAX_DEPTH) {
      throw refused(v, "it nests more than " + MAX_DEPTH + " levels deep");
    }
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof SimpleKey key) {
      writeElements(SIMPLE_KEY, params(key), out, true, depth);
    } else if (v instanceof String s) {
      out.writeByte(STRING);
      Codecs.strings().encode(s, out);
    } else if (v.getClass().isArray()) {
      if (!arraysByContent) {
        throw refused(v, "an array inside a collection or record compares by identity");
      }
      writeArray(v, out, depth);
    } else if (!writeScalar(v, out)) {
      writeComposite(v, out, depth);
    }
  }

  /** Returns whether {@code v} was a number, boolean, char or other scalar it wrote. */
  private static boolean writeScalar(Object v, ByteSink out) {
    switch (v) {
      case Boolean b -> {
        out.writeByte(BOOLEAN);
        out.writeByte(b ? 1 : 0);
      }
      case Byte b -> {
        out.writeByte(BYTE);
        out.writeByte(b);
      }
      case Short s -> tagged(SHORT, out).writeZigZagLong(s);
      case Integer i -> tagged(INT, out).writeZigZagLong(i);
      case Long l -> tagged(LONG, out).writeZigZagLong(l);
      case Float f -> tagged(FLOAT, out).writeInt(Float.floatToIntBits(f));
      case Double d -> tagged(DOUBLE, out).writeLong(Double.doubleToLongBits(d));
      case Character c -> tagged(CHAR, out).writeVarInt(c);
      case BigInteger b -> Codecs.bigIntegers().encode(b, tagged(BIG_INTEGER, out));
      case BigDecimal b -> Codecs.bigDecimals().encode(b, tagged(BIG_DECIMAL, out));
      case UUID u -> Codecs.uuids().encode(u, tagged(UUID_TAG, out));
      case Instant i -> Codecs.instants().encode(i, tagged(INSTANT, out));
      case LocalDate d -> Codecs.localDates().encode(d, tagged(LOCAL_DATE, out));
      case LocalDateTime d -> Codecs.localDateTimes().encode(d, tagged(LOCAL_DATE_TIME, out));
      default -> {
        return false;
      }
    }
    return true;
  }

  private void writeComposite(Object v, ByteSink out, int depth) {
    switch (v) {
      case Enum<?> e -> {
        out.writeByte(ENUM);
        Codecs.strings().encode(e.getDeclaringClass().getName(), out);
        Codecs.strings().encode(e.name(), out);
      }
      case Record r -> {
        out.writeByte(RECORD);
        Codecs.strings().encode(r.getClass().getName(), out);
        recordCodec(r.getClass(), v).encode(r, out);
      }
      case List<?> list -> writeElements(LIST, list.toArray(), out, false, depth);
      case Set<?> set -> writeSorted(SET, set.toArray(), out, depth);
      case Map<?, ?> map -> writeMap(map, out, depth);
      default -> throw refused(v, "Larder has no canonical encoding for it");
    }
  }

  private static ByteSink tagged(int tag, ByteSink out) {
    out.writeByte(tag);
    return out;
  }

  private void writeElements(
      int tag, Object[] elements, ByteSink out, boolean arraysByContent, int depth) {
    out.writeByte(tag);
    out.writeVarInt(elements.length);
    for (Object e : elements) {
      write(e, out, arraysByContent, depth + 1);
    }
  }

  /** Elements in the ascending unsigned order of their encodings: equal sets, equal bytes. */
  private void writeSorted(int tag, Object[] elements, ByteSink out, int depth) {
    byte[][] encoded = new byte[elements.length][];
    for (int i = 0; i < elements.length; i++) {
      encoded[i] = encodeAlone(elements[i], depth + 1);
    }
    Arrays.sort(encoded, Arrays::compareUnsigned);
    out.writeByte(tag);
    out.writeVarInt(encoded.length);
    for (byte[] e : encoded) {
      out.writeBytes(e);
    }
  }

  private void writeMap(Map<?, ?> map, ByteSink out, int depth) {
    byte[][][] entries = new byte[map.size()][][];
    int i = 0;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      entries[i++] =
          new byte[][] {encodeAlone(e.getKey(), depth + 1), encodeAlone(e.getValue(), depth + 1)};
    }
    Arrays.sort(entries, 0, i, (a, b) -> Arrays.compareUnsigned(a[0], b[0]));
    out.writeByte(MAP);
    out.writeVarInt(i);
    for (int j = 0; j < i; j++) {
      out.writeBytes(entries[j][0]);
      out.writeBytes(entries[j][1]);
    }
  }

  private byte[] encodeAlone(Object v, int depth) {
    ByteSink sink = new ByteSink(16);
    write(v, sink, false, depth);
    return sink.toByteArray();
  }

  private void writeArray(Object array, ByteSink out, int depth) {
    switch (array) {
      case Object[] a -> writeElements(OBJECT_ARRAY, a, out, true, depth);
      case byte[] a -> Codecs.bytes().encode(a, tagged(BYTE_ARRAY, out));
      case short[] a -> {
        tagged(SHORT_ARRAY, out).writeVarInt(a.length);
        for (short s : a) {
          out.writeZigZagLong(s);
        }
      }
      case int[] a -> {
        tagged(INT_ARRAY, out).writeVarInt(a.length);
        for (int n : a) {
          out.writeZigZagLong(n);
        }
      }
      case long[] a -> {
        tagged(LONG_ARRAY, out).writeVarInt(a.length);
        for (long n : a) {
          out.writeZigZagLong(n);
        }
      }
      case char[] a -> {
        tagged(CHAR_ARRAY, out).writeVarInt(a.length);
        for (char c : a) {
          out.writeVarInt(c);
        }
      }
      case boolean[] a -> {
        tagged(BOOLEAN_ARRAY, out).writeVarInt(a.length);
        for (boolean b : a) {
          out.writeByte(b ? 1 : 0);
        }
      }
      case float[] a -> {
        tagged(FLOAT_ARRAY, out).writeVarInt(a.length);
        for (float f : a) {
          out.writeInt(Float.floatToIntBits(f));
        }
      }
      case double[] a -> {
        tagged(DOUBLE_ARRAY, out).writeVarInt(a.length);
        for (double d : a) {
          out.writeLong(Double.doubleToLongBits(d));
        }
      }
      default -> throw new IllegalStateException("not an array: " + array.getClass());
    }
  }

  @SuppressWarnings("unchecked")
  private Codec<Object> recordCodec(Class<?> type, Object key) {
    Codec<Object> codec = recordCodecs.get(type);
    if (codec != null) {
      return codec;
    }
    if (holdsArray(type, new HashSet<>())) {
      throw refused(
          key, "a component holds an array, which record equality compares by" + " identity");
    }
    try {
      codec = (Codec<Object>) Codecs.forType(type);
    } catch (IllegalArgumentException e) {
      throw refused(key, e.getMessage());
    }
    recordCodecs.putIfAbsent(type, codec);
    return codec;
  }

  /** Whether a record's component types hold an array anywhere (nested records included). */
  private static boolean holdsArray(Type type, Set<Type> seen) {
    if (!seen.add(type)) {
      return false;
    }
    return switch (type) {
      case GenericArrayType g -> true;
      case ParameterizedType p ->
          Arrays.stream(p.getActualTypeArguments()).anyMatch(t -> holdsArray(t, seen));
      case Class<?> c when c.isArray() -> true;
      case Class<?> c when c.isRecord() ->
          Arrays.stream(c.getRecordComponents())
              .map(RecordComponent::getGenericType)
              .anyMatch(t -> holdsArray(t, seen));
      default -> false;
    };
  }

  private IllegalArgumentException refused(Object key, String why) {
    return new IllegalArgumentException(
        "cache '"
            + cacheName
            + "' cannot use a key of type "
            + key.getClass().getName()
            + " ("
            + why
            + "). With "
            + property
            + "=java.lang.Object"
            + " (the default) keys may be strings, numbers, booleans, chars, UUIDs, instants, dates,"
            + " enums, records, and lists, sets, maps, arrays and SimpleKeys of them. Declare "
            + property
            + " with the key's class if Larder has a codec for it, or give @Cacheable a"
            + " key expression (key = \"#p0.id\")");
  }

  private static Object[] params(SimpleKey key) {
    return (Object[]) SIMPLE_KEY_PARAMS.get(key);
  }

  /**
   * SimpleKey keeps its parameters in a private field and offers no accessor; its equality is
   * {@code Arrays.deepEquals} of them, so they are what the encoding must carry.
   */
  private static VarHandle simpleKeyParams() {
    try {
      return MethodHandles.privateLookupIn(SimpleKey.class, MethodHandles.lookup())
          .findVarHandle(SimpleKey.class, "params", Object[].class);
    } catch (ReflectiveOperationException | IllegalAccessError | SecurityException e) {
      throw new IllegalStateException(
          "cannot read SimpleKey's parameters (Spring Framework"
              + " changed SimpleKey?): declare key-type for each cache instead",
          e);
    }
  }

  // ---- decoding ----

  private Object read(ByteSource in, int depth) {
    if (depth > MAX_DEPTH) {
      throw new CodecException("key nests more than " + MAX_DEPTH + " levels deep");
    }
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case NULL -> null;
      case SIMPLE_KEY -> new SimpleKey(readElements(in, depth));
      case STRING -> Codecs.strings().decode(in);
      case BOOLEAN -> readBoolean(in);
      case BYTE -> in.readByte();
      case SHORT -> (short) ranged(in.readZigZagLong(), Short.MIN_VALUE, Short.MAX_VALUE);
      case INT -> (int) ranged(in.readZigZagLong(), Integer.MIN_VALUE, Integer.MAX_VALUE);
      case LONG -> in.readZigZagLong();
      case FLOAT -> Float.intBitsToFloat(in.readInt());
      case DOUBLE -> Double.longBitsToDouble(in.readLong());
      case CHAR -> (char) ranged(in.readVarInt(), 0, Character.MAX_VALUE);
      case BIG_INTEGER -> Codecs.bigIntegers().decode(in);
      case BIG_DECIMAL -> Codecs.bigDecimals().decode(in);
      case UUID_TAG -> Codecs.uuids().decode(in);
      case INSTANT -> Codecs.instants().decode(in);
      case LOCAL_DATE -> Codecs.localDates().decode(in);
      case LOCAL_DATE_TIME -> Codecs.localDateTimes().decode(in);
      case ENUM -> readEnum(in);
      case RECORD -> readRecord(in);
      case LIST -> new ArrayList<>(Arrays.asList(readElements(in, depth)));
      case SET -> new LinkedHashSet<>(Arrays.asList(readElements(in, depth)));
      case MAP -> readMap(in, depth);
      case OBJECT_ARRAY -> readElements(in, depth);
      default -> readPrimitiveArray(tag, in);
    };
  }

  private Object[] readElements(ByteSource in, int depth) {
    Object[] elements = new Object[in.readLength(1)];
    for (int i = 0; i < elements.length; i++) {
      elements[i] = read(in, depth + 1);
    }
    return elements;
  }

  private Map<Object, Object> readMap(ByteSource in, int depth) {
    int count = in.readLength(2);
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      map.put(read(in, depth + 1), read(in, depth + 1));
    }
    return map;
  }

  private static Object readPrimitiveArray(int tag, ByteSource in) {
    if (tag == BYTE_ARRAY) {
      return Codecs.bytes().decode(in);
    }
    int n =
        switch (tag) {
          case FLOAT_ARRAY -> in.readLength(4);
          case DOUBLE_ARRAY -> in.readLength(8);
          case SHORT_ARRAY, INT_ARRAY, LONG_ARRAY, CHAR_ARRAY, BOOLEAN_ARRAY -> in.readLength(1);
          default -> throw new CodecException("unknown Spring key tag " + tag);
        };
    return switch (tag) {
      case SHORT_ARRAY -> {
        short[] a = new short[n];
        for (int i = 0; i < n; i++) {
          a[i] = (short) ranged(in.readZigZagLong(), Short.MIN_VALUE, Short.MAX_VALUE);
        }
        yield a;
      }
      case INT_ARRAY -> {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
          a[i] = (int) ranged(in.readZigZagLong(), Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        yield a;
      }
      case LONG_ARRAY -> {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
          a[i] = in.readZigZagLong();
        }
        yield a;
      }
      case CHAR_ARRAY -> {
        char[] a = new char[n];
        for (int i = 0; i < n; i++) {
          a[i] = (char) ranged(in.readVarInt(), 0, Character.MAX_VALUE);
        }
        yield a;
      }
      case BOOLEAN_ARRAY -> {
        boolean[] a = new boolean[n];
        for (int i = 0; i < n; i++) {
          a[i] = readBoolean(in);
        }
        yield a;
      }
      case FLOAT_ARRAY -> {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
          a[i] = Float.intBitsToFloat(in.readInt());
        }
        yield a;
      }
      default -> {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
          a[i] = Double.longBitsToDouble(in.readLong());
        }
        yield a;
      }
    };
  }

  private static boolean readBoolean(ByteSource in) {
    int b = in.readUnsignedByte();
    if (b > 1) {
      throw new CodecException("bad boolean byte " + b);
    }
    return b == 1;
  }

  private static long ranged(long v, long min, long max) {
    if (v < min || v > max) {
      throw new CodecException("value " + v + " out of range [" + min + ", " + max + "]");
    }
    return v;
  }

  private Object readEnum(ByteSource in) {
    Class<?> type = named(Codecs.strings().decode(in));
    String constant = Codecs.strings().decode(in);
    if (!type.isEnum()) {
      throw new CodecException(type.getName() + " is not an enum");
    }
    for (Object e : type.getEnumConstants()) {
      if (((Enum<?>) e).name().equals(constant)) {
        return e;
      }
    }
    throw new CodecException(type.getName() + " has no constant " + constant);
  }

  private Object readRecord(ByteSource in) {
    Class<?> type = named(Codecs.strings().decode(in));
    if (!type.isRecord()) {
      throw new CodecException(type.getName() + " is not a record");
    }
    try {
      return recordCodec(type, type).decode(in);
    } catch (IllegalArgumentException e) {
      throw new CodecException("cannot decode a " + type.getName() + ": " + e.getMessage(), e);
    }
  }

  private Class<?> named(String className) {
    try {
      // Not initialised: a name read from the store runs no static initialiser by itself.
      return Class.forName(className, false, classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new CodecException("key names an unknown class " + className, e);
    }
  }
}
