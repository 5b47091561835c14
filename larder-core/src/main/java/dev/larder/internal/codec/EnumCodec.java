package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;

/**
 * An enum as the varint of its ordinal. Reordering or removing constants changes what stored bytes
 * mean; appending constants is safe (docs/spec/codecs.md, "Enum").
 *
 * @param <E> the enum type
 */
public final class EnumCodec<E extends Enum<E>> implements Codec<E> {

  private final Class<E> type;
  private final E[] constants;

  /**
   * @param type the enum class
   */
  public EnumCodec(Class<E> type) {
    this.type = type;
    this.constants = type.getEnumConstants();
  }

  // The ordinal is the format (docs/spec/codecs.md): reordering an enum's constants changes what
  // stored bytes mean, as the codec's Javadoc warns.
  @SuppressWarnings("EnumOrdinal")
  @Override
  public void encode(E value, ByteSink out) {
    out.writeVarInt(value.ordinal());
  }

  @Override
  public E decode(ByteSource in) {
    int ordinal = in.readVarInt();
    if (ordinal < 0 || ordinal >= constants.length) {
      throw new CodecException(
          "no constant " + Integer.toUnsignedString(ordinal) + " in enum " + type.getName());
    }
    return constants[ordinal];
  }

  @Override
  public Class<?> type() {
    return type;
  }

  /** Enum constants are shared singletons; the codec writes only their ordinal. */
  @Override
  public boolean immutable() {
    return true;
  }
}
