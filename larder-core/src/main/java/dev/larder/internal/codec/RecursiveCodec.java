package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;

/**
 * Stands for a record codec while that codec is being built, so that a recursive record ({@code
 * record Tree(List<Tree> children)}) can refer to itself. It is the only way a codec graph can nest
 * without bound, so it is also where nesting is limited: past {@link #MAX_DEPTH} levels, encoding
 * and decoding throw {@link CodecException} instead of overflowing the stack on a deep value or on
 * corrupted bytes.
 *
 * @param <T> the record type
 */
final class RecursiveCodec<T> implements Codec<T> {

  static final int MAX_DEPTH = 256;

  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private final Class<?> type;
  private volatile Codec<T> target;

  RecursiveCodec(Class<?> type) {
    this.type = type;
  }

  void bind(Codec<T> codec) {
    this.target = codec;
  }

  @Override
  public void encode(T value, ByteSink out) {
    int[] depth = enter();
    try {
      target.encode(value, out);
    } finally {
      depth[0]--;
    }
  }

  @Override
  public T decode(ByteSource in) {
    int[] depth = enter();
    try {
      return target.decode(in);
    } finally {
      depth[0]--;
    }
  }

  private int[] enter() {
    int[] depth = DEPTH.get();
    if (depth[0] >= MAX_DEPTH) {
      throw new CodecException(type.getName() + " nested deeper than " + MAX_DEPTH + " levels");
    }
    depth[0]++;
    return depth;
  }

  @Override
  public Class<?> type() {
    return type;
  }

  /** The record that refers back here is checked for its other components by its own codec. */
  @Override
  public boolean deterministic() {
    return true;
  }

  /** As for {@link #deterministic}: the record's own codec checks its other components. */
  @Override
  public boolean immutable() {
    return true;
  }
}
