package dev.larder.codec;

import static dev.larder.codec.CodecAssertions.assertRoundTrip;

import dev.larder.codec.TestTypes.Color;
import dev.larder.codec.TestTypes.Point;
import dev.larder.codec.TestTypes.Shape;
import dev.larder.codec.TestTypes.Tree;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Round trips of every built-in codec and of compositions, over generated values that include the
 * edges: minimum and maximum values, NaN payloads and signed zeros, unpaired and paired surrogates,
 * empty containers, nulls, and nesting.
 */
class CodecRoundTripProperties {

  @Property
  void booleans(@ForAll boolean v) {
    assertRoundTrip(Codecs.booleans(), v);
  }

  @Property
  void bytes(@ForAll byte v) {
    assertRoundTrip(Codecs.byteValues(), v);
  }

  @Property
  void shorts(@ForAll short v) {
    assertRoundTrip(Codecs.shorts(), v);
  }

  @Property
  void ints(@ForAll int v) {
    assertRoundTrip(Codecs.integers(), v);
  }

  @Property
  void longs(@ForAll long v) {
    assertRoundTrip(Codecs.longs(), v);
  }

  @Property
  void floatsByRawBits(@ForAll int bits) {
    assertRoundTrip(Codecs.floats(), Float.intBitsToFloat(bits));
  }

  @Property
  void doublesByRawBits(@ForAll long bits) {
    assertRoundTrip(Codecs.doubles(), Double.longBitsToDouble(bits));
  }

  @Property
  void specialFloatingPoint(@ForAll("specialDoubles") double v) {
    assertRoundTrip(Codecs.doubles(), v);
    assertRoundTrip(Codecs.floats(), (float) v);
  }

  @Property
  void chars(@ForAll char v) {
    assertRoundTrip(Codecs.chars(), v);
  }

  @Property
  void strings(@ForAll("anyStrings") String v) {
    assertRoundTrip(Codecs.strings(), v);
  }

  @Property
  void byteArrays(@ForAll byte[] v) {
    assertRoundTrip(Codecs.bytes(), v);
  }

  @Property
  void uuids(@ForAll long msb, @ForAll long lsb) {
    assertRoundTrip(Codecs.uuids(), new UUID(msb, lsb));
  }

  @Property
  @SuppressWarnings("JavaUtilDate") // the Date codec's own values are java.util.Dates
  void dates(@ForAll long millis) {
    assertRoundTrip(Codecs.dates(), new Date(millis));
  }

  @Property
  void instants(@ForAll("instants") Instant v) {
    assertRoundTrip(Codecs.instants(), v);
  }

  @Property
  void localDates(@ForAll("localDates") LocalDate v) {
    assertRoundTrip(Codecs.localDates(), v);
  }

  @Property
  void localDateTimes(@ForAll("localDates") LocalDate d, @ForAll("nanosOfDay") long nanos) {
    assertRoundTrip(Codecs.localDateTimes(), LocalDateTime.of(d, LocalTime.ofNanoOfDay(nanos)));
  }

  @Property
  void bigIntegers(@ForAll("bigIntegers") BigInteger v) {
    assertRoundTrip(Codecs.bigIntegers(), v);
  }

  @Property
  void bigDecimals(@ForAll("bigIntegers") BigInteger unscaled, @ForAll int scale) {
    assertRoundTrip(Codecs.bigDecimals(), new BigDecimal(unscaled, scale));
  }

  @Property
  void enums(@ForAll Color v) {
    assertRoundTrip(Codecs.enums(Color.class), v);
  }

  @Property
  void locales(@ForAll("locales") Locale v) {
    assertRoundTrip(Codecs.locales(), v);
  }

  @Property
  void recordsOfScalars(@ForAll("points") Point v) {
    assertRoundTrip(Codecs.record(Point.class), v);
  }

  @Property
  void recordsOfRecordsAndCollections(@ForAll("shapes") Shape v) {
    assertRoundTrip(Codecs.record(Shape.class), v);
  }

  @Property
  void recursiveRecords(@ForAll("trees") Tree v) {
    assertRoundTrip(Codecs.record(Tree.class), v);
  }

  @Property
  void listsOfNullableStrings(@ForAll("nullableStringLists") List<String> v) {
    assertRoundTrip(Codecs.list(Codecs.nullable(Codecs.strings())), v);
  }

  @Property
  void setsOfLongs(@ForAll Set<Long> v) {
    assertRoundTrip(Codecs.set(Codecs.longs()), v);
  }

  @Property
  void mapsOfStringsToOptionalInts(@ForAll Map<String, Optional<Integer>> v) {
    assertRoundTrip(Codecs.map(Codecs.strings(), Codecs.optional(Codecs.integers())), v);
  }

  @Property
  void nullableValues(@ForAll("nullableStrings") String v) {
    assertRoundTrip(Codecs.nullable(Codecs.strings()), v);
  }

  @Property(tries = 50)
  void deeplyNestedLists(@ForAll("nestingDepths") int depth) {
    Codec<?> codec = Codecs.integers();
    Object value = depth;
    for (int i = 0; i < depth; i++) {
      codec = Codecs.list(codec);
      value = List.of(value, value);
    }
    assertNestedRoundTrip(codec, value);
  }

  @SuppressWarnings("unchecked")
  private static <T> void assertNestedRoundTrip(Codec<T> codec, Object value) {
    assertRoundTrip(codec, (T) value);
  }

  @Provide
  Arbitrary<Double> specialDoubles() {
    return Arbitraries.of(
        0.0,
        -0.0,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE,
        -Double.MIN_VALUE,
        Double.MAX_VALUE,
        -Double.MAX_VALUE,
        Double.MIN_NORMAL,
        Double.longBitsToDouble(0x7ff0000000000001L),
        Double.longBitsToDouble(0xfff8000000000abcL));
  }

  @Provide
  Arbitrary<String> anyStrings() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(40),
        Arbitraries.strings().ascii().ofMaxLength(80),
        Arbitraries.strings().withCharRange('\u0080', '\u00ff').ofMaxLength(20),
        Arbitraries.of(
            "",
            "\uD83D\uDE00",
            "a\uD800",
            "\uDC00b",
            "\uDBFF\uDFFF",
            "\uFFFD",
            "\u0000",
            "\uFFFF",
            "\uD800\uD800\uDC00",
            "é\uD83D\uDE00€"));
  }

  @Provide
  Arbitrary<String> nullableStrings() {
    return anyStrings().injectNull(0.3);
  }

  @Provide
  Arbitrary<List<String>> nullableStringLists() {
    return nullableStrings().list().ofMaxSize(10);
  }

  @Provide
  Arbitrary<Instant> instants() {
    return Combinators.combine(
            Arbitraries.longs().between(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond()),
            Arbitraries.integers().between(0, 999_999_999))
        .as(Instant::ofEpochSecond);
  }

  @Provide
  Arbitrary<LocalDate> localDates() {
    return Arbitraries.longs()
        .between(LocalDate.MIN.toEpochDay(), LocalDate.MAX.toEpochDay())
        .map(LocalDate::ofEpochDay);
  }

  @Provide
  Arbitrary<Long> nanosOfDay() {
    return Arbitraries.longs().between(0, 86_400_000_000_000L - 1);
  }

  @Provide
  Arbitrary<BigInteger> bigIntegers() {
    BigInteger big = BigInteger.TWO.pow(300);
    return Arbitraries.bigIntegers().between(big.negate(), big);
  }

  @Provide
  Arbitrary<Locale> locales() {
    List<Locale> all = new ArrayList<>(List.of(Locale.getAvailableLocales()));
    all.add(Locale.ROOT);
    all.add(legacy("ja", "JP", "JP"));
    all.add(legacy("no", "NO", "NY"));
    all.add(legacy("th", "TH", "TH"));
    all.add(legacy("en", "", "POSIX"));
    all.add(
        new Locale.Builder()
            .setLanguage("zh")
            .setScript("Hant")
            .setRegion("TW")
            .setExtension('u', "ca-chinese")
            .build());
    return Arbitraries.of(all);
  }

  @SuppressWarnings("deprecation")
  private static Locale legacy(String language, String country, String variant) {
    return new Locale(language, country, variant);
  }

  @Provide
  Arbitrary<Point> points() {
    return Combinators.combine(
            Arbitraries.integers(),
            Arbitraries.longs(),
            Arbitraries.doubles(),
            Arbitraries.of(true, false),
            Arbitraries.chars(),
            Arbitraries.integers().injectNull(0.3))
        .as(Point::new);
  }

  @Provide
  Arbitrary<Shape> shapes() {
    Arbitrary<Map<String, Set<Long>>> tags =
        Arbitraries.maps(
                Arbitraries.strings().ofMaxLength(5), Arbitraries.longs().set().ofMaxSize(3))
            .ofMaxSize(3);
    Arbitrary<Optional<UUID>> ids = Arbitraries.longs().map(l -> new UUID(l, ~l)).optional();
    return Combinators.combine(
            nullableStrings(),
            Arbitraries.of(Color.class).injectNull(0.2),
            points().list().ofMaxSize(4),
            tags,
            ids,
            instants().injectNull(0.2),
            Arbitraries.bigDecimals().injectNull(0.2),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(5).injectNull(0.2))
        .as(Shape::new);
  }

  @Provide
  Arbitrary<Tree> trees() {
    return Arbitraries.lazyOf(
        () -> Arbitraries.strings().alpha().ofMaxLength(3).map(s -> new Tree(s, List.of())),
        () ->
            Combinators.combine(
                    Arbitraries.strings().alpha().ofMaxLength(3), trees().list().ofMaxSize(3))
                .as(Tree::new));
  }

  @Provide
  Arbitrary<Integer> nestingDepths() {
    return Arbitraries.integers().between(0, 9);
  }
}
