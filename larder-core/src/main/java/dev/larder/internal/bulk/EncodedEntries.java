package dev.larder.internal.bulk;

import java.util.Arrays;

/**
 * Entries given as the bytes their codecs encode them to, gathered for {@link BulkRestore#restore}:
 * a batch a caller fills from a snapshot or a log it reads, without a key or value object per
 * entry. Each entry's key is its key codec's {@code encodeLast} form and its value its value
 * codec's (for {@code Codecs.bytes()}, the bytes themselves).
 *
 * <p>An entry's key and value lie next to each other in one array ({@link #bytes()}): the key at
 * {@link #keyOffset(int)}, the value right after it. A caller either hands over arrays ({@link
 * #add}) or writes an entry's bytes in place: {@link #room} makes room for them at {@link #end()},
 * the caller writes the key then the value there, and {@link #commit} closes the entry.
 *
 * <p>Not thread-safe: one thread fills a batch and hands it to the cache; {@link #clear} makes it
 * ready for the next one.
 */
public final class EncodedEntries {
  private byte[] bytes;
  private int end;
  private int[] offsets;
  private int[] keyLengths;
  private int[] valueLengths;
  private int size;

  /**
   * @param expectedEntries entries a batch is expected to hold (it grows past it), at least 1
   * @param expectedBytes bytes of keys and values a batch is expected to hold, at least 1
   * @throws IllegalArgumentException if either is below 1
   */
  public EncodedEntries(int expectedEntries, int expectedBytes) {
    if (expectedEntries < 1 || expectedBytes < 1) {
      throw new IllegalArgumentException(
          "expected entries and bytes must be at least 1: "
              + expectedEntries
              + ", "
              + expectedBytes);
    }
    this.bytes = new byte[expectedBytes];
    this.offsets = new int[expectedEntries];
    this.keyLengths = new int[expectedEntries];
    this.valueLengths = new int[expectedEntries];
  }

  /**
   * Adds an entry, copying its bytes.
   *
   * @param key the key's encoded bytes, not null
   * @param value the value's encoded bytes, not null
   */
  public void add(byte[] key, byte[] value) {
    byte[] b = room(key.length + value.length);
    System.arraycopy(key, 0, b, end, key.length);
    System.arraycopy(value, 0, b, end + key.length, value.length);
    commit(key.length, value.length);
  }

  /**
   * Makes room for {@code count} more bytes at {@link #end()} and returns the array to write them
   * into (a new one if the batch had to grow: take it after each call).
   *
   * @param count bytes the caller will write, 0 or more
   * @return the batch's array, with at least {@code count} bytes free from {@link #end()}
   * @throws IllegalArgumentException if count is negative or the batch would pass 2 GiB
   */
  public byte[] room(int count) {
    if (count < 0 || count > Integer.MAX_VALUE - 16 - end) {
      throw new IllegalArgumentException("cannot make room for " + count + " more bytes");
    }
    if (bytes.length - end < count) {
      long grown = Math.max((long) end + count, 2L * bytes.length);
      bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, grown));
    }
    return bytes;
  }

  /**
   * Closes an entry whose key ({@code keyLength} bytes) then value ({@code valueLength} bytes) the
   * caller has written at {@link #end()}, in room made by {@link #room}.
   *
   * @param keyLength the key's length, 0 or more
   * @param valueLength the value's length, 0 or more
   * @throws IllegalArgumentException if a length is negative or the two pass the room made
   */
  public void commit(int keyLength, int valueLength) {
    if (keyLength < 0 || valueLength < 0 || (long) keyLength + valueLength > bytes.length - end) {
      throw new IllegalArgumentException(
          "an entry of " + keyLength + " + " + valueLength + " bytes passes the room made for it");
    }
    if (size == offsets.length) {
      int grown = Math.max(16, 2 * size);
      offsets = Arrays.copyOf(offsets, grown);
      keyLengths = Arrays.copyOf(keyLengths, grown);
      valueLengths = Arrays.copyOf(valueLengths, grown);
    }
    offsets[size] = end;
    keyLengths[size] = keyLength;
    valueLengths[size] = valueLength;
    size++;
    end += keyLength + valueLength;
  }

  /** Forgets every entry, keeping the arrays for the next batch. */
  public void clear() {
    size = 0;
    end = 0;
  }

  /** Returns the entries added since the last {@link #clear}. */
  public int size() {
    return size;
  }

  /** Returns where the next entry's bytes go in {@link #bytes()}. */
  public int end() {
    return end;
  }

  /**
   * Returns the array holding every entry's bytes; the cache reads it, a caller writes only into
   * room made by {@link #room}.
   */
  public byte[] bytes() {
    return bytes;
  }

  /**
   * Returns where entry {@code i}'s key starts in {@link #bytes()}; its value follows the key.
   *
   * @param i an entry, 0 to {@link #size()} - 1
   */
  public int keyOffset(int i) {
    return offsets[index(i)];
  }

  /**
   * Returns entry {@code i}'s key length.
   *
   * @param i an entry, 0 to {@link #size()} - 1
   */
  public int keyLength(int i) {
    return keyLengths[index(i)];
  }

  /**
   * Returns entry {@code i}'s value length.
   *
   * @param i an entry, 0 to {@link #size()} - 1
   */
  public int valueLength(int i) {
    return valueLengths[index(i)];
  }

  private int index(int i) {
    return java.util.Objects.checkIndex(i, size);
  }
}
