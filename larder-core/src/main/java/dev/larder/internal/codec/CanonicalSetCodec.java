package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import java.util.Set;

/**
 * A set with its elements in canonical order ({@link CanonicalOrder}): the wire form of {@link
 * CodecResolver#set}, so either codec decodes the other's bytes, but equal sets encode alike.
 * Deterministic when the element codec is, so such sets can be keys. Each encoding copies and sorts
 * the elements' bytes, which a plain set codec does not pay.
 *
 * <p>Thread-safe when the element codec is.
 *
 * @param <E> element type
 */
public final class CanonicalSetCodec<E> implements Codec<Set<E>> {

  private final Codec<E> element;
  private final Codec<Set<E>> plain;

  /**
   * @param element the element codec
   */
  public CanonicalSetCodec(Codec<E> element) {
    this.element = element;
    this.plain = CodecResolver.set(element);
  }

  @Override
  public void encode(Set<E> value, ByteSink out) {
    byte[][] elements = CanonicalOrder.sortedElements(value, element);
    out.writeVarInt(elements.length);
    for (byte[] bytes : elements) {
      out.writeBytes(bytes);
    }
  }

  @Override
  public Set<E> decode(ByteSource in) {
    return plain.decode(in);
  }

  @Override
  public Class<?> type() {
    return Set.class;
  }

  @Override
  public boolean deterministic() {
    return element.deterministic();
  }
}
