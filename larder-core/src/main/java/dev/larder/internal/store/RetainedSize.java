package dev.larder.internal.store;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Estimates the heap bytes a decoded value keeps alive: what the hot tier counts for it in the
 * cache's memory.
 *
 * <p>Implementation notes. A walk of the value's graph through public API only: strings, boxed
 * numbers, UUID, BigInteger/BigDecimal and {@code java.time} values by their JDK field layout;
 * records through their accessors (when the record's module lets this one look them up);
 * collections and maps by the layout of the JDK implementation class (its arrays and nodes) plus
 * their elements. Objects the JDK or the codecs share between values count nothing: enum constants,
 * Locales, small boxed values from the {@code valueOf} caches, {@code Optional.empty}. An object
 * reached twice within one value counts once. An object of a class the walk cannot see into counts
 * as an object of two references, so graphs of such classes are underestimated; values that share
 * parts with other entries (a dictionary's interned values) are counted as if they owned them, an
 * overestimate. Sizes follow {@link ObjectLayout}. Thread-safe.
 */
public final class RetainedSize {

  private static final int REF = ObjectLayout.REFERENCE;
  private static final long STRING = ObjectLayout.object(REF + 6L);
  private static final long BOX_32 = ObjectLayout.object(4);
  private static final long BOX_64 = ObjectLayout.object(8);
  private static final long HASH_NODE = ObjectLayout.object(4L + 3L * REF);
  private static final long LINKED_NODE = ObjectLayout.object(4L + 5L * REF);
  private static final long TREE_NODE = ObjectLayout.object(1L + 5L * REF);
  private static final long HASH_MAP = ObjectLayout.object(4L * 4 + 4L * REF);
  private static final long SHALLOW_UNKNOWN = ObjectLayout.object(2L * REF);

  private static final ClassValue<RecordShape> RECORDS =
      new ClassValue<>() {
        @Override
        protected RecordShape computeValue(Class<?> type) {
          return RecordShape.of(type);
        }
      };

  private RetainedSize() {}

  /**
   * Returns the estimated bytes it retains; 0 for null and for shared constants.
   *
   * @param value a decoded value, or null
   */
  public static long of(Object value) {
    if (value instanceof String s) {
      return string(s);
    }
    return new Walk().size(value);
  }

  /** Returns the bytes of a string and its array (Latin-1 when every char fits a byte). */
  public static long string(String s) {
    return STRING + ObjectLayout.array(s.length(), latin1(s) ? 1 : 2);
  }

  private static boolean latin1(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      if (s.charAt(i) > 0xFF) {
        return false;
      }
    }
    return true;
  }

  /** One estimate: remembers what it counted, so that a shared part counts once. */
  private static final class Walk {
    private IdentityHashMap<Object, Boolean> seen;

    long size(Object value) {
      if (value == null
          || value instanceof Enum<?>
          || value instanceof Class<?>
          || value instanceof java.util.Locale
          || shared(value)
          || !firstVisit(value)) {
        return 0;
      }
      return switch (value) {
        case String s -> string(s);
        case Integer i -> cached(i) ? 0 : BOX_32;
        case Long l -> l >= -128 && l <= 127 ? 0 : BOX_64;
        case Short s -> s >= -128 && s <= 127 ? 0 : BOX_32;
        case Byte b -> 0;
        case Character c -> c <= 127 ? 0 : BOX_32;
        case Boolean b -> 0;
        case Float f -> BOX_32;
        case Double d -> BOX_64;
        case UUID u -> ObjectLayout.object(16);
        case BigInteger b -> bigInteger(b);
        // counted with its BigInteger: the codec decodes through one, which the value keeps
        case BigDecimal d ->
            ObjectLayout.object(2L * 4 + 8 + 2L * REF) + bigInteger(d.unscaledValue());
        case Optional<?> o -> ObjectLayout.object(REF) + size(o.orElse(null));
        case Record r -> record(r);
        case Map<?, ?> m -> map(m);
        case Collection<?> c -> collection(c);
        default ->
            value.getClass().getName().startsWith("java.time.") ? time(value) : SHALLOW_UNKNOWN;
      };
    }

    private static boolean cached(int i) {
      return i >= -128 && i <= 127;
    }

    private static boolean shared(Object value) {
      return value instanceof Optional<?> o && o.isEmpty();
    }

    private boolean firstVisit(Object value) {
      if (value instanceof String || value instanceof Number) {
        return true;
      }
      if (seen == null) {
        seen = new IdentityHashMap<>();
      }
      return seen.put(value, Boolean.TRUE) == null;
    }

    private static long bigInteger(BigInteger b) {
      return ObjectLayout.object(5L * 4 + REF) + ObjectLayout.array((b.bitLength() + 31) / 32, 4);
    }

    /** java.time values: a few primitive fields, and for date-times their date and time parts. */
    private long time(Object value) {
      return switch (value) {
        case java.time.LocalDateTime t ->
            ObjectLayout.object(2L * REF) + time(t.toLocalDate()) + time(t.toLocalTime());
        case java.time.LocalTime t -> ObjectLayout.object(7);
        case java.time.LocalDate d -> ObjectLayout.object(8);
        case java.time.Instant i -> ObjectLayout.object(12);
        case java.time.Duration d -> ObjectLayout.object(12);
        default -> ObjectLayout.object(16);
      };
    }

    private long record(Record r) {
      RecordShape shape = RECORDS.get(r.getClass());
      long total = shape.shallow;
      for (MethodHandle getter : shape.references) {
        total += size(shape.get(getter, r));
      }
      return total;
    }

    private long collection(Collection<?> c) {
      long total = collectionShell(c);
      for (Object element : c) {
        total += size(element);
      }
      return total;
    }

    private long map(Map<?, ?> m) {
      long total = mapShell(m);
      for (Map.Entry<?, ?> e : m.entrySet()) {
        total += size(e.getKey()) + size(e.getValue());
      }
      return total;
    }

    /** The collection's own objects: wrappers, arrays, nodes; not its elements. */
    private static long collectionShell(Collection<?> c) {
      String name = c.getClass().getName();
      int n = c.size();
      if (name.startsWith("java.util.Collections$Unmodifiable")) {
        return ObjectLayout.object(2L * REF) + innerShell(c, n, name);
      }
      return innerShell(c, n, name);
    }

    private static long innerShell(Collection<?> c, int n, String name) {
      if (name.endsWith("$List12") || name.endsWith("$Set12")) {
        return ObjectLayout.object(2L * REF);
      }
      if (name.endsWith("$ListN") || name.endsWith("$SubList")) {
        return ObjectLayout.object(REF + 4L) + ObjectLayout.referenceArray(n);
      }
      if (name.endsWith("$SetN")) {
        return ObjectLayout.object(REF + 4L) + ObjectLayout.referenceArray(2L * n);
      }
      if (c instanceof java.util.HashSet<?>) {
        boolean linked = c instanceof java.util.LinkedHashSet<?>;
        return ObjectLayout.object(REF) + hashMap(n, linked);
      }
      if (c instanceof java.util.TreeSet<?>) {
        return ObjectLayout.object(REF) + ObjectLayout.object(3L * 4 + 5L * REF) + n * TREE_NODE;
      }
      // ArrayList and the like: the object and an array of about the size
      return ObjectLayout.object(2L * 4 + REF) + ObjectLayout.referenceArray(n);
    }

    private static long mapShell(Map<?, ?> m) {
      String name = m.getClass().getName();
      int n = m.size();
      long wrapper = 0;
      if (name.startsWith("java.util.Collections$Unmodifiable")) {
        wrapper = ObjectLayout.object(4L * REF);
      }
      if (name.endsWith("$Map1")) {
        return wrapper + ObjectLayout.object(2L * REF);
      }
      if (name.endsWith("$MapN")) {
        return wrapper + ObjectLayout.object(REF + 4L) + ObjectLayout.referenceArray(4L * n);
      }
      if (m instanceof java.util.TreeMap<?, ?>) {
        return wrapper + ObjectLayout.object(3L * 4 + 5L * REF) + n * TREE_NODE;
      }
      if (m instanceof java.util.HashMap<?, ?> || wrapper > 0) {
        return wrapper + hashMap(n, m instanceof java.util.LinkedHashMap<?, ?>);
      }
      return ObjectLayout.object(2L * 4 + 2L * REF) + ObjectLayout.referenceArray(2L * n);
    }

    private static long hashMap(int n, boolean linked) {
      long table = n == 0 ? 0 : ObjectLayout.referenceArray(tableSize(n));
      return HASH_MAP
          + (linked ? 2L * REF + 8 : 0)
          + table
          + n * (linked ? LINKED_NODE : HASH_NODE);
    }

    private static int tableSize(int n) {
      int wanted = (int) Math.ceil(n / 0.75);
      return Math.max(16, Integer.highestOneBit(Math.max(1, wanted - 1)) << 1);
    }
  }

  /** A record class's shallow size and the accessors of its reference components. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; one per class, never changed
  private record RecordShape(long shallow, MethodHandle[] references) {
    static RecordShape of(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      long fields = 0;
      java.util.List<MethodHandle> references = new java.util.ArrayList<>();
      for (RecordComponent c : components) {
        Class<?> t = c.getType();
        fields +=
            !t.isPrimitive()
                ? REF
                : t == long.class || t == double.class
                    ? 8
                    : t == int.class || t == float.class
                        ? 4
                        : t == short.class || t == char.class ? 2 : 1;
        if (!t.isPrimitive()) {
          MethodHandle getter = accessor(type, c);
          if (getter != null) {
            references.add(getter);
          }
        }
      }
      return new RecordShape(ObjectLayout.object(fields), references.toArray(MethodHandle[]::new));
    }

    private static MethodHandle accessor(Class<?> type, RecordComponent c) {
      MethodType generic = MethodType.methodType(Object.class, Object.class);
      try {
        return MethodHandles.publicLookup().unreflect(c.getAccessor()).asType(generic);
      } catch (IllegalAccessException | RuntimeException e) {
        try {
          return MethodHandles.privateLookupIn(type, MethodHandles.lookup())
              .unreflect(c.getAccessor())
              .asType(generic);
        } catch (IllegalAccessException | RuntimeException denied) {
          return null;
        }
      }
    }

    Object get(MethodHandle getter, Record r) {
      try {
        return getter.invokeExact((Object) r);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }
}
