package dev.larder.internal.store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A 64-bit hash of encoded key bytes. The store hashes bytes, not key objects, so that it can
 * rehash a key it finds in a page (during eviction) without decoding it: the array and the segment
 * variants must agree bit for bit.
 *
 * <p>Eight bytes at a time, each word multiplied into the state, then a final avalanche (the
 * finaliser of MurmurHash3's 64-bit variant), so that every output bit depends on every input bit;
 * the top bits feed the index slot tag and must be well mixed.
 */
final class KeyHash {

  private static final long SEED = 0x9E3779B97F4A7C15L;
  private static final long M1 = 0xC2B2AE3D27D4EB4FL;
  private static final long M2 = 0x165667B19E3779F9L;
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong SEGMENT_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private KeyHash() {}

  static long hash(byte[] bytes, int offset, int length) {
    long h = SEED ^ (length * M2);
    int i = offset;
    int end = offset + length;
    for (; i + 8 <= end; i += 8) {
      h = step(h, (long) LONG_LE.get(bytes, i));
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += 8) {
      tail |= (bytes[i] & 0xFFL) << shift;
    }
    return finish(step(h, tail));
  }

  static long hash(MemorySegment memory, long offset, int length) {
    long h = SEED ^ (length * M2);
    long i = offset;
    long end = offset + length;
    for (; i + 8 <= end; i += 8) {
      h = step(h, memory.get(SEGMENT_LONG, i));
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += 8) {
      tail |= (memory.get(ValueLayout.JAVA_BYTE, i) & 0xFFL) << shift;
    }
    return finish(step(h, tail));
  }

  private static long step(long h, long word) {
    long k = word * M1;
    k = Long.rotateLeft(k, 31) * M2;
    return Long.rotateLeft(h ^ k, 27) * 5 + 0x52DCE729;
  }

  private static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }
}
