package dev.larder.codec;

import java.util.Map;

/** The built-in codec instances and the type-to-codec table behind {@link Codecs#forType}. */
final class BuiltInCodecs {

  static final Codec<byte[]> BYTES = new BytesCodec();
  static final Codec<String> STRINGS = new StringCodec();
  static final Codec<Long> LONGS = new LongCodec();
  static final Codec<Integer> INTEGERS = new IntegerCodec();

  private static final Map<Class<?>, Codec<?>> BY_TYPE = Map.of(
      byte[].class, BYTES,
      String.class, STRINGS,
      Long.class, LONGS,
      long.class, LONGS,
      Integer.class, INTEGERS,
      int.class, INTEGERS);

  private BuiltInCodecs() {}

  static Codec<?> lookup(Class<?> type) {
    return BY_TYPE.get(type);
  }

  /** Wire form: varint length, bytes; when last, the bytes alone. */
  private static final class BytesCodec implements Codec<byte[]> {
    @Override
    public void encode(byte[] value, ByteSink out) {
      out.writeVarInt(value.length);
      out.writeBytes(value);
    }

    @Override
    public byte[] decode(ByteSource in) {
      return in.readBytes(in.readLength(1));
    }

    @Override
    public void encodeLast(byte[] value, ByteSink out) {
      out.writeBytes(value);
    }

    @Override
    public byte[] decodeLast(ByteSource in) {
      return in.readBytes(in.remaining());
    }

    @Override
    public Class<?> type() {
      return byte[].class;
    }
  }

  /**
   * Wire form: varint {@code units << 1 | wide}; if not wide, one byte a char (Latin-1);
   * if wide, UTF-16 code units as UTF-8 where they form valid text, written by
   * {@link StringForms}. {@code units} is the number of bytes that follow.
   */
  private static final class StringCodec implements Codec<String> {
    @Override
    public void encode(String value, ByteSink out) {
      StringForms.write(value, out);
    }

    @Override
    public String decode(ByteSource in) {
      return StringForms.read(in);
    }

    @Override
    public Class<?> type() {
      return String.class;
    }
  }

  /** Wire form: zig-zag varint. */
  private static final class LongCodec implements Codec<Long> {
    @Override
    public void encode(Long value, ByteSink out) {
      out.writeZigZagLong(value);
    }

    @Override
    public Long decode(ByteSource in) {
      return in.readZigZagLong();
    }

    @Override
    public Class<?> type() {
      return Long.class;
    }
  }

  /** Wire form: zig-zag varint of the int widened to long. */
  private static final class IntegerCodec implements Codec<Integer> {
    @Override
    public void encode(Integer value, ByteSink out) {
      out.writeZigZagLong(value);
    }

    @Override
    public Integer decode(ByteSource in) {
      long v = in.readZigZagLong();
      if (v != (int) v) {
        throw new CodecException("int out of range: " + v);
      }
      return (int) v;
    }

    @Override
    public Class<?> type() {
      return Integer.class;
    }
  }
}
