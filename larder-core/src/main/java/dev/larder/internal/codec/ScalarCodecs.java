package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;

/**
 * Codecs of the primitive wrappers. Wire forms (docs/spec/codecs.md, "Scalars"): boolean one byte 0
 * or 1; byte one byte; short, int and long zig-zag varints (1 byte for -64..63); char an unsigned
 * varint of its code unit; float and double their raw IEEE 754 bits, 4 and 8 bytes little-endian,
 * so NaN payloads and signed zeros survive.
 */
public final class ScalarCodecs {

  public static final Codec<Boolean> BOOLEAN = new BooleanCodec();
  public static final Codec<Byte> BYTE = new ByteCodec();
  public static final Codec<Short> SHORT = new ShortCodec();
  public static final Codec<Integer> INT = new IntCodec();
  public static final Codec<Long> LONG = new LongCodec();
  public static final Codec<Float> FLOAT = new FloatCodec();
  public static final Codec<Double> DOUBLE = new DoubleCodec();
  public static final Codec<Character> CHAR = new CharCodec();

  private ScalarCodecs() {}

  /**
   * Reads a zig-zag varint that must fit {@code [min, max]}.
   *
   * @param in the input
   * @param min smallest valid value
   * @param max largest valid value
   * @param what the type name for the error message
   * @return the value
   */
  public static long readBoundedZigZag(ByteSource in, long min, long max, String what) {
    long v = in.readZigZagLong();
    if (v < min || v > max) {
      throw new CodecException(what + " out of range: " + v);
    }
    return v;
  }

  private static final class BooleanCodec implements Codec<Boolean> {
    @Override
    public void encode(Boolean value, ByteSink out) {
      out.writeByte(value ? 1 : 0);
    }

    @Override
    public Boolean decode(ByteSource in) {
      int b = in.readUnsignedByte();
      if (b > 1) {
        throw new CodecException("boolean byte must be 0 or 1: " + b);
      }
      return b == 1;
    }

    @Override
    public Class<?> type() {
      return Boolean.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class ByteCodec implements Codec<Byte> {
    @Override
    public void encode(Byte value, ByteSink out) {
      out.writeByte(value);
    }

    @Override
    public Byte decode(ByteSource in) {
      return in.readByte();
    }

    @Override
    public Class<?> type() {
      return Byte.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class ShortCodec implements Codec<Short> {
    @Override
    public void encode(Short value, ByteSink out) {
      out.writeZigZagLong(value);
    }

    @Override
    public Short decode(ByteSource in) {
      return (short) readBoundedZigZag(in, Short.MIN_VALUE, Short.MAX_VALUE, "short");
    }

    @Override
    public Class<?> type() {
      return Short.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class IntCodec implements Codec<Integer> {
    @Override
    public void encode(Integer value, ByteSink out) {
      out.writeZigZagLong(value);
    }

    @Override
    public Integer decode(ByteSource in) {
      return (int) readBoundedZigZag(in, Integer.MIN_VALUE, Integer.MAX_VALUE, "int");
    }

    @Override
    public Class<?> type() {
      return Integer.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

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

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class FloatCodec implements Codec<Float> {
    @Override
    public void encode(Float value, ByteSink out) {
      out.writeInt(Float.floatToRawIntBits(value));
    }

    @Override
    public Float decode(ByteSource in) {
      return Float.intBitsToFloat(in.readInt());
    }

    @Override
    public Class<?> type() {
      return Float.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class DoubleCodec implements Codec<Double> {
    @Override
    public void encode(Double value, ByteSink out) {
      out.writeLong(Double.doubleToRawLongBits(value));
    }

    @Override
    public Double decode(ByteSource in) {
      return Double.longBitsToDouble(in.readLong());
    }

    @Override
    public Class<?> type() {
      return Double.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class CharCodec implements Codec<Character> {
    @Override
    public void encode(Character value, ByteSink out) {
      out.writeVarInt(value);
    }

    @Override
    public Character decode(ByteSource in) {
      int v = in.readVarInt();
      if (v > Character.MAX_VALUE) {
        throw new CodecException("char out of range: " + v);
      }
      return (char) v;
    }

    @Override
    public Class<?> type() {
      return Character.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }
}
