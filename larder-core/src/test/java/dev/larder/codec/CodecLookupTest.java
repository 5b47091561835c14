package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.assertRoundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.TestTypes.Legacy;
import dev.larder.codec.TestTypes.Money;
import dev.larder.codec.TestTypes.Point;
import dev.larder.codec.TestTypes.Unsupported;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CodecLookupTest {

  /** Fields whose generic types the lookups below read. */
  @SuppressWarnings("unused")
  private static final class Fields {
    Map<String, List<Point>> pointsByName;
    List<Money> amounts;
    List<Object> objects;
  }

  private record PackagePrivatePair(String left, int right) {}

  @Test
  void everyBuiltInTypeResolves() {
    for (Class<?> type :
        List.of(
            boolean.class,
            Boolean.class,
            byte.class,
            short.class,
            int.class,
            Integer.class,
            long.class,
            Long.class,
            float.class,
            double.class,
            char.class,
            String.class,
            byte[].class,
            UUID.class,
            Date.class,
            Instant.class,
            LocalDate.class,
            LocalDateTime.class,
            BigDecimal.class,
            BigInteger.class,
            Locale.class)) {
      Codec<?> codec = Codecs.forType(type);
      assertTrue(codec.type() == type || codec.type() == MethodHandlesWrap.wrap(type), type + "");
    }
    assertSame(Codecs.strings(), Codecs.forType(String.class));
    assertSame(Codecs.longs(), Codecs.forType(long.class));
  }

  /** Maps primitive classes to wrappers. */
  private static final class MethodHandlesWrap {
    static Class<?> wrap(Class<?> c) {
      return java.lang.invoke.MethodType.methodType(c).wrap().returnType();
    }
  }

  @Test
  void genericTypesCompose() throws NoSuchFieldException {
    Type type = Fields.class.getDeclaredField("pointsByName").getGenericType();
    assertTrue(type instanceof ParameterizedType);
    @SuppressWarnings("unchecked")
    Codec<Map<String, List<Point>>> codec =
        (Codec<Map<String, List<Point>>>) Codecs.forGenericType(type);
    assertRoundTrip(codec, Map.of("p", List.of(new Point(1, 2, 3, true, 'c', 4))));
  }

  @Test
  void missingCodecsFailAtLookupNamingTheType() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Codecs.forType(Thread.class));
    assertTrue(e.getMessage().contains("java.lang.Thread"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Codecs.record(Unsupported.class));
    assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
    assertTrue(e.getMessage().contains("'payload'"), e.getMessage());
    assertTrue(e.getMessage().contains(Unsupported.class.getName()), e.getMessage());
  }

  @Test
  void buildingACacheForATypeWithoutCodecFailsNamingIt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Cache.builder(String.class, Legacy.class));
    assertTrue(e.getMessage().contains(Legacy.class.getName()), e.getMessage());
  }

  @Test
  void javaSerializationIsOnlyAnExplicitOptIn() {
    assertThrows(IllegalArgumentException.class, () -> Codecs.forType(Legacy.class));
    Codec<Legacy> codec = Codecs.javaSerialization(Legacy.class);
    assertRoundTrip(codec, new Legacy("old", new int[] {1, 2}));
    assertFalse(codec.deterministic());
  }

  @Test
  void javaSerializationRejectsClassesOutsideItsFilter() {
    Codec<java.io.Serializable> codec =
        Codecs.javaSerialization(
            java.io.Serializable.class,
            java.io.ObjectInputFilter.Config.createFilter("java.lang.*;!*"));
    byte[] bytes = CodecAssertions.encode(codec, new java.util.ArrayList<>(List.of("x")));
    assertThrows(CodecException.class, () -> codec.decode(new ByteSource(bytes)));
  }

  @Test
  void providersFromTheServiceLoaderServeTheirTypesAlsoInsideCompositions()
      throws NoSuchFieldException {
    Codec<Money> money = Codecs.forType(Money.class);
    assertRoundTrip(money, new Money(-1234));
    Type amounts = Fields.class.getDeclaredField("amounts").getGenericType();
    @SuppressWarnings("unchecked")
    Codec<List<Money>> list = (Codec<List<Money>>) Codecs.forGenericType(amounts);
    assertRoundTrip(list, List.of(new Money(1), new Money(2)));
  }

  @Test
  void unsupportedTypeArgumentsAreNamed() throws NoSuchFieldException {
    Type objects = Fields.class.getDeclaredField("objects").getGenericType();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Codecs.forGenericType(objects));
    assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
  }

  @Test
  void recordsOutsideTheDefaultAccessUseTheCallersLookup() {
    Codec<PackagePrivatePair> codec =
        Codecs.record(PackagePrivatePair.class, MethodHandles.lookup());
    assertRoundTrip(codec, new PackagePrivatePair("x", 7));
  }

  @Test
  void decodedRecordsThatFailValidationAreCodecExceptions() {
    Codec<TestTypes.Positive> codec = Codecs.record(TestTypes.Positive.class);
    byte[] zero = CodecAssertions.encode(Codecs.integers(), 0);
    CodecException e = assertThrows(CodecException.class, () -> codec.decode(new ByteSource(zero)));
    assertTrue(e.getMessage().contains("Positive"), e.getMessage());
  }

  @Test
  void wideRecordsUseAMultiByteNullBitmap() {
    Codec<TestTypes.Wide> codec = Codecs.record(TestTypes.Wide.class);
    assertRoundTrip(codec, new TestTypes.Wide(null, "b", null, "d", null, "f", null, "h", null));
    assertEquals(
        2,
        CodecAssertions.encode(
                codec, new TestTypes.Wide(null, null, null, null, null, null, null, null, null))
            .length);
  }

  @Test
  void determinismIsReportedForComposites() {
    assertTrue(Codecs.list(Codecs.strings()).deterministic());
    assertFalse(Codecs.set(Codecs.strings()).deterministic());
    assertFalse(Codecs.map(Codecs.strings(), Codecs.strings()).deterministic());
    ValueDictionary d = ValueDictionary.builder().build();
    assertFalse(
        Codecs.list(d.substitute("s", Codecs.strings(), ValueDictionary.Mode.ALWAYS))
            .deterministic());
    assertTrue(Codecs.record(TestTypes.Tree.class).deterministic());
  }
}
