package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.util.Collection;
import java.util.function.IntFunction;

/**
 * A list or set: varint count, then the elements in iteration order (docs/spec/codecs.md,
 * "Collections").
 *
 * <p>Implementation notes: every encoding is at least one byte, so a count larger than the bytes
 * remaining is rejected before anything is allocated, and the collection is created with that
 * checked count as its capacity. An element codec that consumed no bytes breaks that rule and is
 * reported rather than looped on.
 *
 * @param <E> element type
 * @param <C> collection type
 */
public final class CollectionCodec<E, C extends Collection<E>> implements Codec<C> {

  private final Codec<E> element;
  private final IntFunction<? extends C> factory;
  private final Class<?> type;
  private final boolean ordered;

  /**
   * @param element the element codec
   * @param factory makes an empty collection for a given size
   * @param type the collection type reported by {@link #type()}
   * @param ordered whether equal collections always iterate in the same order (lists do)
   */
  public CollectionCodec(
      Codec<E> element, IntFunction<? extends C> factory, Class<?> type, boolean ordered) {
    this.element = element;
    this.factory = factory;
    this.type = type;
    this.ordered = ordered;
  }

  @Override
  public void encode(C value, ByteSink out) {
    out.writeVarInt(value.size());
    int written = 0;
    for (E e : value) {
      element.encode(e, out);
      written++;
    }
    if (written != value.size()) {
      throw new CodecException("collection changed size while being encoded");
    }
  }

  @Override
  public C decode(ByteSource in) {
    int count = in.readLength(1);
    C result = factory.apply(count);
    for (int i = 0; i < count; i++) {
      result.add(decodeElement(element, in));
    }
    return result;
  }

  /**
   * Decodes one element and checks that it consumed input.
   *
   * @param codec the element codec
   * @param in the input
   * @param <T> element type
   * @return the element
   */
  static <T> T decodeElement(Codec<T> codec, ByteSource in) {
    int before = in.remaining();
    T value = codec.decode(in);
    if (in.remaining() == before) {
      throw new CodecException("codec for " + codec.type().getName() + " consumed no bytes");
    }
    return value;
  }

  @Override
  public Class<?> type() {
    return type;
  }

  @Override
  public boolean deterministic() {
    return ordered && element.deterministic();
  }
}
