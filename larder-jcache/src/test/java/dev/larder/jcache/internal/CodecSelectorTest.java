package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.io.Serializable;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecSelectorTest {

  record Point(int x, int y) implements Serializable {}

  record Holder(List<Object> anything) implements Serializable {}

  /** A subclass that a Date codec would flatten. */
  static final class TaggedDate extends Date {
    private static final long serialVersionUID = 1L;
    final String tag;

    @SuppressWarnings("JavaUtilDate") // a Date subclass on purpose
    TaggedDate(long time, String tag) {
      super(time);
      this.tag = tag;
    }
  }

  private final ClassLoader loader = getClass().getClassLoader();

  private static <T> T roundTrip(Codec<T> codec, T value) {
    ByteSink sink = new ByteSink();
    codec.encodeLast(value, sink);
    return codec.decodeLast(new ByteSource(sink.toByteArray()));
  }

  @Test
  void aConfiguredCodecWins() {
    Codec<String> mine = new UpperCaseCodec();
    assertSame(mine, CodecSelector.select(mine, String.class, loader));
  }

  @Test
  void finalTypesWithABuiltInCodecUseIt() {
    Codec<String> strings = CodecSelector.select(null, String.class, loader);
    assertFalse(strings instanceof SerializationCodec);
    assertEquals("text", roundTrip(strings, "text"));
    Codec<Point> points = CodecSelector.select(null, Point.class, loader);
    assertFalse(points instanceof SerializationCodec);
    assertEquals(new Point(3, -4), roundTrip(points, new Point(3, -4)));
  }

  @Test
  @SuppressWarnings("JavaUtilDate") // a Date subclass on purpose
  void openTypesAndTypesWithoutACodecAreSerialized() {
    assertTrue(CodecSelector.select(null, Object.class, loader) instanceof SerializationCodec);
    Codec<Date> dates = CodecSelector.select(null, Date.class, loader);
    assertTrue(dates instanceof SerializationCodec, "Date is not final: subclasses must survive");
    Date stamp = new TaggedDate(1234L, "tag");
    Date copy = roundTrip(dates, stamp);
    assertEquals(TaggedDate.class, copy.getClass());
    assertEquals("tag", ((TaggedDate) copy).tag);
    assertTrue(CodecSelector.select(null, Holder.class, loader) instanceof SerializationCodec);
  }

  @Test
  void builtInNames() {
    assertSame(Codecs.longs(), CodecSelector.byName("LONG", loader));
    assertTrue(CodecSelector.byName("serialization", loader) instanceof SerializationCodec);
    assertEquals(null, CodecSelector.byName("com.example.Codec", loader));
  }
}
