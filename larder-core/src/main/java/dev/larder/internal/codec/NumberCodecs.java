package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;

/**
 * Codecs of UUID, BigInteger and BigDecimal. Wire forms (docs/spec/codecs.md): UUID 16 bytes, the
 * most then the least significant long, each little-endian; BigInteger a varint length then its
 * minimal two's-complement bytes, big-endian (as {@link BigInteger#toByteArray()}); BigDecimal a
 * zig-zag varint of the scale, then the unscaled value as a BigInteger.
 */
public final class NumberCodecs {

  public static final Codec<UUID> UUIDS = new UuidCodec();
  public static final Codec<BigInteger> BIG_INTEGER = new BigIntegerCodec();
  public static final Codec<BigDecimal> BIG_DECIMAL = new BigDecimalCodec();

  private NumberCodecs() {}

  private static final class UuidCodec implements Codec<UUID> {
    @Override
    public void encode(UUID value, ByteSink out) {
      out.writeLong(value.getMostSignificantBits());
      out.writeLong(value.getLeastSignificantBits());
    }

    @Override
    public UUID decode(ByteSource in) {
      return new UUID(in.readLong(), in.readLong());
    }

    @Override
    public Class<?> type() {
      return UUID.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class BigIntegerCodec implements Codec<BigInteger> {
    @Override
    public void encode(BigInteger value, ByteSink out) {
      byte[] bytes = value.toByteArray();
      out.writeVarInt(bytes.length);
      out.writeBytes(bytes);
    }

    @Override
    public BigInteger decode(ByteSource in) {
      int length = in.readLength(1);
      if (length == 0) {
        throw new CodecException("BigInteger with no bytes");
      }
      return new BigInteger(in.readBytes(length));
    }

    @Override
    public Class<?> type() {
      return BigInteger.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }

  private static final class BigDecimalCodec implements Codec<BigDecimal> {
    @Override
    public void encode(BigDecimal value, ByteSink out) {
      out.writeZigZagLong(value.scale());
      BIG_INTEGER.encode(value.unscaledValue(), out);
    }

    @Override
    public BigDecimal decode(ByteSource in) {
      int scale =
          (int)
              ScalarCodecs.readBoundedZigZag(
                  in, Integer.MIN_VALUE, Integer.MAX_VALUE, "BigDecimal scale");
      return new BigDecimal(BIG_INTEGER.decode(in), scale);
    }

    @Override
    public Class<?> type() {
      return BigDecimal.class;
    }

    @Override
    public boolean immutable() {
      return true;
    }
  }
}
