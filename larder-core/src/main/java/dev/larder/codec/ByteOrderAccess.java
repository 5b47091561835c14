package dev.larder.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Little-endian views over byte arrays, shared by {@link ByteSink} and {@link ByteSource}. */
final class ByteOrderAccess {

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private ByteOrderAccess() {}

  static int getInt(byte[] b, int offset) {
    return (int) INT.get(b, offset);
  }

  static void putInt(byte[] b, int offset, int v) {
    INT.set(b, offset, v);
  }

  static long getLong(byte[] b, int offset) {
    return (long) LONG.get(b, offset);
  }

  static void putLong(byte[] b, int offset, long v) {
    LONG.set(b, offset, v);
  }
}
