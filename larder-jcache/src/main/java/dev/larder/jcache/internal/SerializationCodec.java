package dev.larder.jcache.internal;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;

/**
 * Java serialization as a {@link Codec}: the codec of last resort for store-by-value caches whose
 * types have no Larder codec. The stored bytes are the serialization stream itself (behind a varint
 * length unless written last), so the store weighs them exactly.
 *
 * <p>Not {@code Codecs.javaSerialization}: that codec admits only an allow-list of classes and
 * resolves them with the default loader, while JCache's store-by-value must take any {@code
 * Serializable} value graph and resolve its classes with the cache manager's loader.
 *
 * <p>Implementation notes: the stream carries class descriptors, so entries cost more than with a
 * Larder codec; configure a codec for hot types. Classes resolve through the cache manager's class
 * loader, then the thread's context loader. The bytes decoded are only ever bytes this codec wrote
 * into the cache's own store in this process, never input from outside it; even so, a filter bounds
 * every array and the stream to the input's length, so corrupted bytes fail with a {@link
 * CodecException} rather than a huge allocation.
 *
 * @param <T> the declared type
 */
final class SerializationCodec<T> implements Codec<T> {

  private final Class<T> type;
  private final ClassLoader classLoader;

  SerializationCodec(Class<T> type, ClassLoader classLoader) {
    this.type = type;
    this.classLoader = classLoader;
  }

  @Override
  public void encode(T value, ByteSink out) {
    byte[] bytes = serialize(value);
    out.writeVarInt(bytes.length);
    out.writeBytes(bytes);
  }

  @Override
  public void encodeLast(T value, ByteSink out) {
    out.writeBytes(serialize(value));
  }

  @Override
  public T decode(ByteSource in) {
    return deserialize(in.readBytes(in.readLength(1)));
  }

  @Override
  public T decodeLast(ByteSource in) {
    return deserialize(in.readBytes(in.remaining()));
  }

  @Override
  public Class<?> type() {
    return type;
  }

  private byte[] serialize(T value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new CodecException(
          "cannot serialize "
              + value.getClass().getName()
              + " (store-by-value needs Serializable values or a codec): "
              + e,
          e);
    }
    return bytes.toByteArray();
  }

  private T deserialize(byte[] bytes) {
    try (ObjectInputStream in = new LoaderObjectInputStream(new ByteArrayInputStream(bytes))) {
      in.setObjectInputFilter(info -> withinInput(info, bytes.length));
      @SuppressWarnings("unchecked")
      T value = (T) in.readObject();
      return value;
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      // Corrupted streams can fail in many ways inside readObject; all mean "not a valid encoding".
      throw new CodecException("cannot deserialize a " + type.getName() + ": " + e, e);
    }
  }

  /**
   * Rejects arrays longer than the input and reads beyond it, so that corrupted bytes fail with a
   * {@link CodecException} instead of allocating what the input cannot hold.
   */
  private static ObjectInputFilter.Status withinInput(
      ObjectInputFilter.FilterInfo info, int inputLength) {
    if (info.arrayLength() > inputLength || info.streamBytes() > inputLength) {
      return ObjectInputFilter.Status.REJECTED;
    }
    return ObjectInputFilter.Status.UNDECIDED;
  }

  /** Resolves classes through the manager's loader first. */
  private final class LoaderObjectInputStream extends ObjectInputStream {

    LoaderObjectInputStream(InputStream in) throws IOException {
      super(in);
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc)
        throws IOException, ClassNotFoundException {
      try {
        return Class.forName(desc.getName(), false, classLoader);
      } catch (ClassNotFoundException e) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && !context.equals(classLoader)) {
          try {
            return Class.forName(desc.getName(), false, context);
          } catch (ClassNotFoundException ignored) {
            // fall back to the default resolution below
          }
        }
        return super.resolveClass(desc);
      }
    }
  }
}
