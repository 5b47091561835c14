package dev.larder.codec;

import dev.larder.codec.TestTypes.Color;
import dev.larder.codec.TestTypes.Point;
import dev.larder.codec.TestTypes.Tree;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Every built-in codec and representative compositions, each with sample values: the fuzz tests
 * corrupt the samples' encodings, and the golden test pins their bytes.
 */
final class CodecCatalogue {

  /** A named codec and its samples. */
  record Entry(String name, Codec<Object> codec, List<Object> samples) {}

  private CodecCatalogue() {}

  @SuppressWarnings("JavaUtilDate") // the Date codec's own values are java.util.Dates
  static List<Entry> all() {
    return List.of(
        entry("boolean", Codecs.booleans(), false, true),
        entry("byte", Codecs.byteValues(), (byte) 0, (byte) -1, Byte.MIN_VALUE),
        entry("short", Codecs.shorts(), (short) 0, (short) -64, Short.MIN_VALUE, Short.MAX_VALUE),
        entry("int", Codecs.integers(), 0, -1, 63, 64, Integer.MIN_VALUE, Integer.MAX_VALUE),
        entry("long", Codecs.longs(), 0L, -65L, 300L, Long.MIN_VALUE, Long.MAX_VALUE),
        entry("float", Codecs.floats(), 0f, -0f, 1.5f, Float.NaN, Float.NEGATIVE_INFINITY),
        entry("double", Codecs.doubles(), 0d, -0d, Math.PI, Double.NaN, Double.MAX_VALUE),
        entry("char", Codecs.chars(), 'a', '\u00e9', '\uD800', '\uFFFF'),
        entry(
            "string", Codecs.strings(), "", "larder", "caf\u00e9", "\u20ac\uD83D\uDE00", "a\uD800"),
        entry("bytes", Codecs.bytes(), new byte[0], new byte[] {1, 2, (byte) 255}),
        entry("uuid", Codecs.uuids(), new UUID(0x0123456789abcdefL, 0xfedcba9876543210L)),
        entry("date", Codecs.dates(), new Date(0), new Date(1_593_475_200_000L), new Date(-1)),
        entry(
            "instant",
            Codecs.instants(),
            Instant.EPOCH,
            Instant.parse("2020-06-30T12:34:56.789Z"),
            Instant.MIN,
            Instant.MAX),
        entry(
            "localDate",
            Codecs.localDates(),
            LocalDate.of(2020, 6, 30),
            LocalDate.MIN,
            LocalDate.MAX),
        entry(
            "localDateTime",
            Codecs.localDateTimes(),
            LocalDateTime.of(2020, 6, 30, 12, 34, 56, 789),
            LocalDateTime.MAX),
        entry(
            "bigInteger",
            Codecs.bigIntegers(),
            BigInteger.ZERO,
            BigInteger.valueOf(-129),
            BigInteger.TWO.pow(100)),
        entry(
            "bigDecimal",
            Codecs.bigDecimals(),
            new BigDecimal("0"),
            new BigDecimal("-12.345"),
            new BigDecimal("1E+400")),
        entry("enum", Codecs.enums(Color.class), Color.RED, Color.BLUE),
        entry(
            "locale",
            Codecs.locales(),
            Locale.ROOT,
            Locale.UK,
            Locale.forLanguageTag("zh-Hant-TW"),
            legacyJapanese()),
        entry(
            "record",
            Codecs.record(Point.class),
            new Point(1, -2, 0.5, true, 'x', null),
            new Point(Integer.MIN_VALUE, Long.MAX_VALUE, -0d, false, '\u0000', 7)),
        entry(
            "recursiveRecord",
            Codecs.record(Tree.class),
            new Tree(
                "root",
                List.of(
                    new Tree("a", List.of()), new Tree(null, List.of(new Tree("b", List.of())))))),
        entry("emptyRecord", Codecs.record(TestTypes.Empty.class), new TestTypes.Empty()),
        entry(
            "validatingRecord", Codecs.record(TestTypes.Positive.class), new TestTypes.Positive(5)),
        entry("list", Codecs.list(Codecs.strings()), List.of(), List.of("a", "", "bc")),
        entry("set", Codecs.set(Codecs.integers()), new LinkedHashSet<>(List.of(3, 1, 2))),
        entry("map", Codecs.map(Codecs.strings(), Codecs.longs()), map("x", 1L, "y", -1L)),
        entry(
            "canonicalSet",
            Codecs.canonicalSet(Codecs.integers()),
            new LinkedHashSet<>(List.of(3, 1, 2))),
        entry(
            "canonicalMap",
            Codecs.canonicalMap(Codecs.strings(), Codecs.longs()),
            map("y", -1L, "x", 1L)),
        entry("optional", Codecs.optional(Codecs.integers()), Optional.empty(), Optional.of(5)),
        entry("nullable", Codecs.nullable(Codecs.strings()), "present"),
        entry(
            "nested",
            Codecs.map(Codecs.strings(), Codecs.list(Codecs.optional(Codecs.uuids()))),
            map("k", List.of(Optional.empty(), Optional.of(new UUID(1, 2))))));
  }

  @SuppressWarnings("unchecked")
  private static Entry entry(String name, Codec<?> codec, Object... samples) {
    return new Entry(name, (Codec<Object>) codec, List.of(samples));
  }

  @SuppressWarnings("deprecation")
  private static Locale legacyJapanese() {
    return new Locale("ja", "JP", "JP");
  }

  private static <K, V> Map<K, V> map(K k1, V v1) {
    Map<K, V> m = new LinkedHashMap<>();
    m.put(k1, v1);
    return m;
  }

  private static <K, V> Map<K, V> map(K k1, V v1, K k2, V v2) {
    Map<K, V> m = map(k1, v1);
    m.put(k2, v2);
    return m;
  }
}
