package dev.larder.model;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.Codecs;
import java.io.Serializable;
import java.util.Date;
import java.util.Locale;

/**
 * A property value: a tag byte naming its type (and, for numbers and dates, the smaller of two
 * forms), then the value. Tags (docs/spec/content-node.md):
 *
 * <pre>
 *  0 null          1 int varint     2 int fixed 4 B   3 long varint   4 long fixed 8 B
 *  5 float 4 B     6 double 8 B     7 date millis     8 date days     9 text
 * 10 node ref     11 qname         12 content data   13 false        14 true
 * 15 locale
 * </pre>
 *
 * Varint forms are zig-zag; the fixed forms are chosen when the varint would be longer
 * (large-magnitude numbers, such as the full-range ints and longs of the benchmark model). A date
 * at midnight UTC is written as its epoch day.
 */
final class PropertyValueCodec implements Codec<Serializable> {

  private static final long DAY_MILLIS = 86_400_000L;

  private final Codec<String> text;
  private final Codec<QName> qnames;
  private final Codec<Locale> locales;
  private final Codec<NodeRef> nodeRefs;
  private final Codec<ContentData> contents;

  PropertyValueCodec(ModelForms forms) {
    this.text = forms.text();
    this.qnames = forms.qnameValue();
    this.locales = forms.locale();
    this.nodeRefs = new NodeRefCodec(forms.store());
    this.contents = new ContentDataCodec(forms);
  }

  @Override
  public void encode(Serializable value, ByteSink out) {
    encodeValue(value, out);
  }

  /**
   * {@link #encode} for a value not yet cast to {@code Serializable}: a cast to an interface costs
   * a search of the class's supertypes, measurable at 15 values a node.
   */
  void encodeValue(Object value, ByteSink out) {
    // Exact classes first, most frequent first: a class comparison is cheaper than the
    // instanceof tests of a pattern switch, which subclasses (java.sql.Timestamp, say) still go
    // through. Each case calls its own codec field, so the JIT sees one codec class per site.
    Class<?> type = value == null ? null : value.getClass();
    if (type == Date.class) {
      writeDate((Date) value, out);
    } else if (type == String.class) {
      out.writeByte(9);
      text.encode((String) value, out);
    } else if (type == Integer.class) {
      writeInt((Integer) value, out);
    } else if (type == Long.class) {
      writeLong((Long) value, out);
    } else {
      encodeOther(value, out);
    }
  }

  private void encodeOther(Object value, ByteSink out) {
    switch (value) {
      case null -> out.writeByte(0);
      case Date d -> writeDate(d, out);
      case String s -> {
        out.writeByte(9);
        text.encode(s, out);
      }
      case Integer i -> writeInt(i, out);
      case Long l -> writeLong(l, out);
      case Float f -> {
        out.writeByte(5);
        out.writeInt(Float.floatToRawIntBits(f));
      }
      case Double d -> {
        out.writeByte(6);
        out.writeLong(Double.doubleToRawLongBits(d));
      }
      case NodeRef r -> {
        out.writeByte(10);
        nodeRefs.encode(r, out);
      }
      case QName q -> {
        out.writeByte(11);
        qnames.encode(q, out);
      }
      case ContentData c -> {
        out.writeByte(12);
        contents.encode(c, out);
      }
      case Boolean b -> out.writeByte(b ? 14 : 13);
      case Locale l -> {
        out.writeByte(15);
        locales.encode(l, out);
      }
      default ->
          throw new CodecException("unsupported property value type " + value.getClass().getName());
    }
  }

  private static void writeInt(int v, ByteSink out) {
    if (v >= -(1 << 20) && v < 1 << 20) {
      out.writeByte(1);
      out.writeZigZagLong(v);
    } else {
      out.writeByte(2);
      out.writeInt(v);
    }
  }

  private static void writeLong(long v, ByteSink out) {
    if (v >= -(1L << 48) && v < 1L << 48) {
      out.writeByte(3);
      out.writeZigZagLong(v);
    } else {
      out.writeByte(4);
      out.writeLong(v);
    }
  }

  @SuppressWarnings("JavaUtilDate") // the node model serves java.util.Date, which users store
  private static void writeDate(Date d, ByteSink out) {
    long millis = d.getTime();
    if (millis % DAY_MILLIS == 0) {
      out.writeByte(8);
      out.writeZigZagLong(millis / DAY_MILLIS);
    } else {
      out.writeByte(7);
      out.writeZigZagLong(millis);
    }
  }

  @Override
  public Serializable decode(ByteSource in) {
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case 0 -> null;
      case 1 -> Codecs.integers().decode(in);
      case 2 -> in.readInt();
      case 3 -> in.readZigZagLong();
      case 4 -> in.readLong();
      case 5 -> Float.intBitsToFloat(in.readInt());
      case 6 -> Double.longBitsToDouble(in.readLong());
      case 7 -> new FrozenDate(in.readZigZagLong());
      case 8 -> new FrozenDate(readDay(in) * DAY_MILLIS);
      case 9 -> text.decode(in);
      case 10 -> nodeRefs.decode(in);
      case 11 -> qnames.decode(in);
      case 12 -> contents.decode(in);
      case 13 -> false;
      case 14 -> true;
      case 15 -> locales.decode(in);
      default -> throw new CodecException("unknown property value tag " + tag);
    };
  }

  private static long readDay(ByteSource in) {
    long day = in.readZigZagLong();
    if (Math.abs(day) > Long.MAX_VALUE / DAY_MILLIS) {
      throw new CodecException("epoch day out of range: " + day);
    }
    return day;
  }

  @Override
  public Class<?> type() {
    return Serializable.class;
  }

  @Override
  public boolean deterministic() {
    return false;
  }
}
