package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * Java serialization, for legacy types only and only on request. Wire form: varint length, then the
 * serialization stream; when last, the stream alone. The bytes carry class names and are many times
 * larger and slower than a derived codec's.
 *
 * <p>Deserialization is filtered: the caller's allow-list, and limits derived from the input
 * (stream bytes, array lengths, depth, references), so corrupted input cannot make it allocate far
 * beyond its length.
 *
 * @param <T> the serializable type
 */
public final class JavaSerializationCodec<T extends Serializable> implements Codec<T> {

  private static final int MAX_DEPTH = 64;

  private final Class<T> type;
  private final ObjectInputFilter allowed;

  /**
   * @param type the type of values
   * @param allowed decides which classes may be deserialized
   */
  public JavaSerializationCodec(Class<T> type, ObjectInputFilter allowed) {
    this.type = type;
    this.allowed = allowed;
  }

  /**
   * Returns a filter that admits {@code type}, the classes of its package, and java.base's {@code
   * java.lang}, {@code java.util}, {@code java.time} and {@code java.math}.
   *
   * @param type the type of values
   */
  public static ObjectInputFilter defaultFilter(Class<?> type) {
    String own = type.getPackageName().isEmpty() ? type.getName() : type.getPackageName() + ".*";
    return ObjectInputFilter.Config.createFilter(
        type.getName() + ";" + own + ";java.lang.*;java.util.*;java.time.*;java.math.*;!*");
  }

  @Override
  public void encode(T value, ByteSink out) {
    byte[] bytes = serialize(value);
    out.writeVarInt(bytes.length);
    out.writeBytes(bytes);
  }

  @Override
  public T decode(ByteSource in) {
    return deserialize(in.readBytes(in.readLength(1)));
  }

  @Override
  public void encodeLast(T value, ByteSink out) {
    out.writeBytes(serialize(value));
  }

  @Override
  public T decodeLast(ByteSource in) {
    return deserialize(in.readBytes(in.remaining()));
  }

  private byte[] serialize(T value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new CodecException("cannot serialize " + value.getClass().getName(), e);
    }
    return bytes.toByteArray();
  }

  private T deserialize(byte[] bytes) {
    ObjectInputFilter limits =
        ObjectInputFilter.Config.createFilter(
            "maxbytes="
                + bytes.length
                + ";maxarray="
                + bytes.length
                + ";maxdepth="
                + MAX_DEPTH
                + ";maxrefs="
                + bytes.length);
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      in.setObjectInputFilter(ObjectInputFilter.merge(allowed, limits));
      Object value = in.readObject();
      if (!type.isInstance(value)) {
        throw new CodecException(
            "deserialized "
                + (value == null ? "null" : "a " + value.getClass().getName())
                + ", expected "
                + type.getName());
      }
      return type.cast(value);
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      if (e instanceof CodecException ce) {
        throw ce;
      }
      throw new CodecException("invalid Java serialization stream for " + type.getName(), e);
    }
  }

  @Override
  public Class<?> type() {
    return type;
  }

  /** Serialization streams are not canonical (handles, class descriptors, hash orders). */
  @Override
  public boolean deterministic() {
    return false;
  }
}
