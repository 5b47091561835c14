package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.util.Optional;

/**
 * Codecs of values that may be absent: {@link Optional} and nullable references. Wire form
 * (docs/spec/codecs.md, "Optional and nullable"): one byte 0 (absent) or 1 (present), then the
 * value if present.
 */
public final class OptionalCodecs {

  private OptionalCodecs() {}

  /**
   * Returns a codec of {@code Optional<T>}.
   *
   * @param inner codec of the present value
   * @param <T> value type
   */
  public static <T> Codec<Optional<T>> optional(Codec<T> inner) {
    return new OptionalCodec<>(inner);
  }

  /**
   * Returns a codec accepting null.
   *
   * @param inner codec of non-null values
   * @param <T> value type
   */
  public static <T> Codec<T> nullable(Codec<T> inner) {
    return new NullableCodec<>(inner);
  }

  private static boolean readPresence(ByteSource in) {
    int flag = in.readUnsignedByte();
    if (flag > 1) {
      throw new CodecException("presence byte must be 0 or 1: " + flag);
    }
    return flag == 1;
  }

  private record OptionalCodec<T>(Codec<T> inner) implements Codec<Optional<T>> {
    @Override
    public void encode(Optional<T> value, ByteSink out) {
      if (value.isPresent()) {
        out.writeByte(1);
        inner.encode(value.get(), out);
      } else {
        out.writeByte(0);
      }
    }

    @Override
    public Optional<T> decode(ByteSource in) {
      return readPresence(in) ? Optional.of(inner.decode(in)) : Optional.empty();
    }

    @Override
    public Class<?> type() {
      return Optional.class;
    }

    @Override
    public boolean deterministic() {
      return inner.deterministic();
    }

    @Override
    public boolean immutable() {
      return inner.immutable();
    }
  }

  /** Null is written as 0; a value as 1 and its encoding. Decodes to null for 0. */
  private record NullableCodec<T>(Codec<T> inner) implements Codec<T> {
    @Override
    public void encode(T value, ByteSink out) {
      if (value == null) {
        out.writeByte(0);
      } else {
        out.writeByte(1);
        inner.encode(value, out);
      }
    }

    @Override
    public T decode(ByteSource in) {
      return readPresence(in) ? inner.decode(in) : null;
    }

    @Override
    public Class<?> type() {
      return inner.type();
    }

    @Override
    public boolean deterministic() {
      return inner.deterministic();
    }

    @Override
    public boolean immutable() {
      return inner.immutable();
    }
  }
}
