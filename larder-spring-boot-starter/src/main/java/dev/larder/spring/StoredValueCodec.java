package dev.larder.spring;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import org.springframework.cache.support.NullValue;

/**
 * The value codec of a Spring-facing cache: Spring's null marker as one byte, any other value as a
 * presence byte and the value's own codec. Refuses a value of the wrong type with a message that
 * names the cache and both classes (the value type's codec would fail with a bare
 * ClassCastException). Thread-safe if the inner codec is.
 */
final class StoredValueCodec implements Codec<Object> {

  private static final int NULL_MARKER = 0;
  private static final int PRESENT = 1;

  private final String cacheName;
  private final String properties;
  private final Class<?> valueType;
  private final Codec<Object> inner;

  @SuppressWarnings("unchecked")
  StoredValueCodec(String cacheName, String properties, Class<?> valueType, Codec<?> inner) {
    this.cacheName = cacheName;
    this.properties = properties;
    this.valueType = valueType;
    this.inner = (Codec<Object>) inner;
  }

  @Override
  public void encode(Object value, ByteSink out) {
    if (value instanceof NullValue) {
      out.writeByte(NULL_MARKER);
      return;
    }
    checkType(value);
    out.writeByte(PRESENT);
    inner.encode(value, out);
  }

  private void checkType(Object value) {
    if (!valueType.isInstance(value)) {
      throw new IllegalArgumentException(
          "cache '"
              + cacheName
              + "' holds values of type "
              + valueType.getName()
              + " ("
              + properties
              + (valueType == java.io.Serializable.class ? ".serialization=java" : ".value-type")
              + "), not "
              + value.getClass().getName());
    }
  }

  @Override
  public void encodeLast(Object value, ByteSink out) {
    if (value instanceof NullValue) {
      out.writeByte(NULL_MARKER);
      return;
    }
    checkType(value);
    out.writeByte(PRESENT);
    inner.encodeLast(value, out);
  }

  @Override
  public Object decode(ByteSource in) {
    return presence(in) ? inner.decode(in) : NullValue.INSTANCE;
  }

  @Override
  public Object decodeLast(ByteSource in) {
    if (!presence(in)) {
      if (!in.exhausted()) {
        throw new CodecException(in.remaining() + " trailing bytes after a null marker");
      }
      return NullValue.INSTANCE;
    }
    return inner.decodeLast(in);
  }

  private static boolean presence(ByteSource in) {
    int tag = in.readUnsignedByte();
    if (tag != NULL_MARKER && tag != PRESENT) {
      throw new CodecException("bad presence byte " + tag);
    }
    return tag == PRESENT;
  }

  @Override
  public Class<?> type() {
    return valueType;
  }

  @Override
  public boolean deterministic() {
    return inner.deterministic();
  }

  /**
   * As immutable as the value type's codec (Spring's null marker is a shared constant): a cache of
   * strings, numbers or records of them then keeps its most read values decoded in Larder's hot
   * tier, and a hit returns one shared instance instead of decoding a copy.
   */
  @Override
  public boolean immutable() {
    return inner.immutable();
  }
}
