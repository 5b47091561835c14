package dev.larder.internal.codec;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.List;

/**
 * A record, derived from its components. Wire form (docs/spec/codecs.md, "Record"): a null bitmap
 * of {@code ceil(r / 8)} bytes for the {@code r} reference-typed components (bit {@code i % 8} of
 * byte {@code i / 8} set when the {@code i}-th of them is null; omitted when {@code r = 0}), then
 * each non-null component in declaration order. A record with no components is one zero byte, so
 * that every encoding has at least one byte.
 *
 * <p>Implementation notes: the accessors and the canonical constructor are turned into method
 * handles once, when the codec is built; a call does no reflection, only {@code invokeExact} on
 * handles adapted to {@code (Object)Object} and {@code (Object[])Object}.
 *
 * @param <R> the record type
 */
public final class RecordCodec<R extends Record> implements Codec<R> {

  private final Class<R> type;
  private final MethodHandle[] getters;
  private final Codec<Object>[] codecs;
  private final boolean[] reference;
  private final int bitmapBytes;
  private final MethodHandle constructor;

  /**
   * @param type the record class
   * @param lookup a lookup with access to its accessors and canonical constructor
   * @param componentCodecs one codec for each component, in declaration order
   * @throws IllegalAccessException if the lookup cannot access them
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public RecordCodec(Class<R> type, MethodHandles.Lookup lookup, List<Codec<?>> componentCodecs)
      throws IllegalAccessException {
    RecordComponent[] components = type.getRecordComponents();
    int n = components.length;
    this.type = type;
    this.getters = new MethodHandle[n];
    this.codecs = new Codec[n];
    this.reference = new boolean[n];
    Class<?>[] parameterTypes = new Class<?>[n];
    int references = 0;
    for (int i = 0; i < n; i++) {
      RecordComponent c = components[i];
      getters[i] =
          lookup
              .unreflect(c.getAccessor())
              .asType(MethodType.methodType(Object.class, Object.class));
      codecs[i] = (Codec<Object>) componentCodecs.get(i);
      reference[i] = !c.getType().isPrimitive();
      references += reference[i] ? 1 : 0;
      parameterTypes[i] = c.getType();
    }
    this.bitmapBytes = (references + 7) / 8;
    this.constructor = canonicalConstructor(type, lookup, parameterTypes);
  }

  private static MethodHandle canonicalConstructor(
      Class<?> type, MethodHandles.Lookup lookup, Class<?>[] parameterTypes)
      throws IllegalAccessException {
    try {
      int n = parameterTypes.length;
      return lookup
          .unreflectConstructor(type.getDeclaredConstructor(parameterTypes))
          .asType(MethodType.genericMethodType(n))
          .asSpreader(Object[].class, n);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("record without canonical constructor: " + type, e);
    }
  }

  @Override
  public void encode(R value, ByteSink out) {
    int n = getters.length;
    if (n == 0) {
      out.writeByte(0);
      return;
    }
    Object[] values = new Object[n];
    long nulls = 0;
    byte[] bitmap = bitmapBytes > 8 ? new byte[bitmapBytes] : null;
    for (int i = 0, r = 0; i < n; i++) {
      values[i] = get(i, value);
      if (reference[i]) {
        if (values[i] == null) {
          nulls |= 1L << (r & 63);
          if (bitmap != null) {
            bitmap[r >>> 3] |= (byte) (1 << (r & 7));
          }
        }
        r++;
      }
    }
    writeBitmap(nulls, bitmap, out);
    for (int i = 0; i < n; i++) {
      if (values[i] != null) {
        codecs[i].encode(values[i], out);
      }
    }
  }

  private void writeBitmap(long nulls, byte[] bitmap, ByteSink out) {
    if (bitmap != null) {
      out.writeBytes(bitmap);
      return;
    }
    for (int b = 0; b < bitmapBytes; b++) {
      out.writeByte((int) (nulls >>> (8 * b)));
    }
  }

  @Override
  public R decode(ByteSource in) {
    int n = getters.length;
    if (n == 0) {
      if (in.readUnsignedByte() != 0) {
        throw new CodecException("empty record " + type.getName() + " must be one zero byte");
      }
      return construct(new Object[0]);
    }
    byte[] bitmap = in.readBytes(bitmapBytes);
    Object[] args = new Object[n];
    for (int i = 0, r = 0; i < n; i++) {
      boolean isNull = reference[i] && (bitmap[r >>> 3] & (1 << (r & 7))) != 0;
      r += reference[i] ? 1 : 0;
      args[i] = isNull ? null : codecs[i].decode(in);
    }
    return construct(args);
  }

  private Object get(int i, R value) {
    try {
      return (Object) getters[i].invokeExact((Object) value);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new CodecException("accessor of " + type.getName() + " failed", t);
    }
  }

  private R construct(Object[] args) {
    try {
      return type.cast((Object) constructor.invokeExact(args));
    } catch (RuntimeException e) {
      // The canonical constructor validates components; corrupted bytes end here.
      throw new CodecException("record " + type.getName() + " rejected decoded components", e);
    } catch (Error e) {
      throw e;
    } catch (Throwable t) {
      throw new CodecException("record " + type.getName() + " could not be constructed", t);
    }
  }

  @Override
  public Class<?> type() {
    return type;
  }

  @Override
  public boolean deterministic() {
    for (Codec<Object> c : codecs) {
      if (!c.deterministic()) {
        return false;
      }
    }
    return true;
  }

  /**
   * A record's fields are final, so it is immutable when every component's codec is (a derived
   * component of type List, Set or Map decodes to a modifiable collection and is not).
   */
  @Override
  public boolean immutable() {
    for (Codec<Object> c : codecs) {
      if (!c.immutable()) {
        return false;
      }
    }
    return true;
  }
}
