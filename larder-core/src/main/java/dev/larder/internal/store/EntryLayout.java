package dev.larder.internal.store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte layout of one entry in a page. Entries are immutable once written, except for the
 * deadline, which an access may move forward under the segment's write lock.
 *
 * <pre>
 * +--------------+----------------+-------------------+-----------+-------------+
 * | keyLen varint| valueLen varint| deadline (8, LE)  | key bytes | value bytes |
 * |   1-5 bytes  |   1-5 bytes    | only if expiring  |  keyLen   |  valueLen   |
 * +--------------+----------------+-------------------+-----------+-------------+
 * </pre>
 *
 * Lengths are unsigned LEB128. Whether the deadline is present is a property of the cache, not of
 * the entry, so it costs nothing when expiry is off. Format version 1 (docs/spec/store-layout.md).
 */
final class EntryLayout {

  static final int DEADLINE_BYTES = 8;
  private static final ValueLayout.OfLong DEADLINE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong WORD = DEADLINE;
  private static final java.lang.invoke.VarHandle KEY_WORD =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private EntryLayout() {}

  static int varintSize(int v) {
    // bits needed / 7, rounded up; v >= 0 always (lengths are ints)
    return (38 - Integer.numberOfLeadingZeros(v | 1)) / 7;
  }

  static int headerSize(int keyLength, int valueLength, boolean expires) {
    return varintSize(keyLength) + varintSize(valueLength) + (expires ? DEADLINE_BYTES : 0);
  }

  /** Returns total bytes the entry occupies, or -1 if it exceeds an int. */
  static long size(int keyLength, int valueLength, boolean expires) {
    return (long) headerSize(keyLength, valueLength, expires) + keyLength + valueLength;
  }

  static void write(
      MemorySegment page,
      int offset,
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      boolean expires,
      long deadline) {
    long at = writeVarint(page, offset, keyLength);
    at = writeVarint(page, at, valueLength);
    if (expires) {
      page.set(DEADLINE, at, deadline);
      at += DEADLINE_BYTES;
    }
    MemorySegment.copy(key, 0, page, ValueLayout.JAVA_BYTE, at, keyLength);
    MemorySegment.copy(value, 0, page, ValueLayout.JAVA_BYTE, at + keyLength, valueLength);
  }

  /**
   * As {@link #write(MemorySegment, int, byte[], int, byte[], int, boolean, long)}, for a key and
   * value that lie next to each other in {@code source} (a bulk restore's batch): one copy.
   */
  static void write(
      MemorySegment page,
      int offset,
      byte[] source,
      int keyOffset,
      int keyLength,
      int valueLength,
      boolean expires,
      long deadline) {
    long at = writeVarint(page, offset, keyLength);
    at = writeVarint(page, at, valueLength);
    if (expires) {
      page.set(DEADLINE, at, deadline);
      at += DEADLINE_BYTES;
    }
    MemorySegment.copy(source, keyOffset, page, ValueLayout.JAVA_BYTE, at, keyLength + valueLength);
  }

  /** Copies a whole entry from one page to another (relocation). */
  static void copy(MemorySegment from, int fromOffset, MemorySegment to, int toOffset, int size) {
    MemorySegment.copy(from, fromOffset, to, toOffset, size);
  }

  /**
   * Reads both lengths. Under an optimistic read the bytes may be garbage: the result is then -1 or
   * lengths that the caller's stamp validation will reject; reads past the page throw {@link
   * IndexOutOfBoundsException}.
   *
   * @return {@code keyLength << 32 | valueLength}, or -1 if malformed
   */
  static long readLengths(MemorySegment page, int offset) {
    if (offset + 8 <= page.byteSize()) {
      long fast = readLengthsFromWord(page.get(WORD, offset));
      if (fast >= 0) {
        return fast;
      }
    }
    long key = readVarint(page, offset);
    if (key < 0) {
      return -1;
    }
    long value = readVarint(page, offset + varintSize((int) key));
    if (value < 0) {
      return -1;
    }
    return key << 32 | value;
  }

  static int keyLength(long lengths) {
    return (int) (lengths >>> 32);
  }

  static int valueLength(long lengths) {
    return (int) lengths;
  }

  static int keyOffset(int entryOffset, long lengths, boolean expires) {
    return entryOffset + headerSize(keyLength(lengths), valueLength(lengths), expires);
  }

  static int entrySize(long lengths, boolean expires) {
    int k = keyLength(lengths);
    int v = valueLength(lengths);
    return headerSize(k, v, expires) + k + v;
  }

  static long deadline(MemorySegment page, int entryOffset, long lengths) {
    int at = entryOffset + varintSize(keyLength(lengths)) + varintSize(valueLength(lengths));
    return page.get(DEADLINE, at);
  }

  static void setDeadline(MemorySegment page, int entryOffset, long lengths, long deadline) {
    int at = entryOffset + varintSize(keyLength(lengths)) + varintSize(valueLength(lengths));
    page.set(DEADLINE, at, deadline);
  }

  /**
   * Compares a stored key with a probe key. Keys are usually short, so eight bytes at a time with
   * plain loads beats the bulk mismatch, whose setup dominates below a few dozen bytes.
   */
  static boolean keyEquals(MemorySegment page, int keyOffset, byte[] key, int keyLength) {
    if (keyLength > 64) {
      return MemorySegment.mismatch(
              page, keyOffset, keyOffset + keyLength, MemorySegment.ofArray(key), 0, keyLength)
          == -1;
    }
    int i = 0;
    for (; i + 8 <= keyLength; i += 8) {
      if (page.get(WORD, keyOffset + i) != (long) KEY_WORD.get(key, i)) {
        return false;
      }
    }
    for (; i < keyLength; i++) {
      if (page.get(ValueLayout.JAVA_BYTE, keyOffset + i) != key[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * As {@link #keyEquals(MemorySegment, int, byte[], int)}, for a key at {@code from} of {@code
   * key}.
   */
  static boolean keyEquals(MemorySegment page, int keyOffset, byte[] key, int from, int keyLength) {
    if (keyLength > 64) {
      return MemorySegment.mismatch(
              page,
              keyOffset,
              keyOffset + keyLength,
              MemorySegment.ofArray(key),
              from,
              from + keyLength)
          == -1;
    }
    int i = 0;
    for (; i + 8 <= keyLength; i += 8) {
      if (page.get(WORD, keyOffset + i) != (long) KEY_WORD.get(key, from + i)) {
        return false;
      }
    }
    for (; i < keyLength; i++) {
      if (page.get(ValueLayout.JAVA_BYTE, keyOffset + i) != key[from + i]) {
        return false;
      }
    }
    return true;
  }

  static boolean valueEquals(MemorySegment page, int valueOffset, byte[] value, int length) {
    return MemorySegment.mismatch(
            page, valueOffset, valueOffset + length, MemorySegment.ofArray(value), 0, length)
        == -1;
  }

  /**
   * Decodes both lengths from the entry's first eight bytes (little-endian), the common case where
   * the two varints take at most six bytes together; -1 if they take more.
   */
  private static long readLengthsFromWord(long word) {
    int key = 0;
    int at = 0;
    for (int shift = 0; ; shift += 7) {
      int b = (int) (word >>> (8 * at++)) & 0xFF;
      key |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
      if (at == 3) {
        return -1;
      }
    }
    int value = 0;
    for (int shift = 0; ; shift += 7) {
      int b = (int) (word >>> (8 * at++)) & 0xFF;
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return (long) key << 32 | value;
      }
      if (at == 6) {
        return -1;
      }
    }
  }

  private static long writeVarint(MemorySegment page, long at, int v) {
    while ((v & ~0x7F) != 0) {
      page.set(ValueLayout.JAVA_BYTE, at++, (byte) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    page.set(ValueLayout.JAVA_BYTE, at++, (byte) v);
    return at;
  }

  private static long readVarint(MemorySegment page, long at) {
    long result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = page.get(ValueLayout.JAVA_BYTE, at++) & 0xFF;
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result > Integer.MAX_VALUE ? -1 : result;
      }
    }
    return -1;
  }
}
