package dev.larder.server.internal.keyspace;

import java.util.Arrays;

/**
 * The chunked form of a large list (list payload encoding 2; the reference is {@code
 * docs/spec/server-value-layout.md}): the head payload, which is the list's index, and the stored
 * keys of its chunks.
 *
 * <pre>
 * head payload:
 *   byte        encoding (2: chunked)
 *   8 bytes     collection id, big-endian: unique to this chunked list
 *   varint      next chunk number (above every number in use)
 *   varint      chunks, at least 1
 *   chunks x:   varint number, varint elements (at least 1), varint payload bytes
 *
 * chunk stored key:
 *   byte        0x80 | db
 *   8 bytes     collection id, big-endian
 *   4 bytes     chunk number, big-endian
 *   bytes       the list's key (without the db byte), to the end
 *
 * chunk stored value: a list value (ValueLayout, type list, no expiry, no flags) whose payload is
 * the chunk's elements in {@link ListPayload#CHUNK} encoding (encoding 1 without backlens)
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A chunk key's first byte is never a database number (0 to 15), so no client can name it and
 * every walk that looks for a database's keys passes over chunks. The collection id keeps the
 * chunks of a list apart from those of an earlier list of the same key (a chunk whose id its head
 * does not carry belongs to no one); the head key at the end lets an evicted chunk name the list
 * that must go with it.
 *
 * <p>Stateless and thread-safe; {@link Index} is a mutable value owned by one thread.
 */
public final class ListChunks {
  /** The chunked encoding's code, the head payload's first byte. */
  public static final int CHUNKED = 2;

  /** The bit that marks a chunk's stored key: its first byte is {@code CHUNK_SPACE | db}. */
  public static final int CHUNK_SPACE = 0x80;

  private static final int KEY_PREFIX = 1 + 8 + 4;

  private ListChunks() {}

  /** Returns whether a stored key is a chunk's. */
  public static boolean isChunkKey(byte[] storedKey) {
    return storedKey.length > 0 && (storedKey[0] & CHUNK_SPACE) != 0;
  }

  /** Returns whether a list payload is a chunked list's head. */
  public static boolean isHead(byte[] payload) {
    return payload.length > 0 && payload[0] == CHUNKED;
  }

  /**
   * Returns whether stored value bytes are a chunked list's head, reading only its header.
   *
   * @param stored stored value bytes
   */
  public static boolean isHeadValue(byte[] stored) {
    if (stored.length < 2 || (stored[0] & 0b1_0011) != ValueType.LIST.code()) {
      return false;
    }
    ValueLayout.Header h = ValueLayout.header(stored);
    return h.type() == ValueType.LIST
        && h.payloadOffset() < stored.length
        && stored[h.payloadOffset()] == CHUNKED;
  }

  /**
   * Returns a chunk's stored key.
   *
   * @param headKey the list's stored key (db byte, key)
   * @param id the collection id
   * @param number the chunk's number
   */
  public static byte[] chunkKey(byte[] headKey, long id, int number) {
    byte[] k = new byte[KEY_PREFIX + headKey.length - 1];
    k[0] = (byte) (CHUNK_SPACE | headKey[0]);
    putLong(k, 1, id);
    k[9] = (byte) (number >>> 24);
    k[10] = (byte) (number >>> 16);
    k[11] = (byte) (number >>> 8);
    k[12] = (byte) number;
    System.arraycopy(headKey, 1, k, KEY_PREFIX, headKey.length - 1);
    return k;
  }

  /**
   * Returns the stored key of the list a chunk belongs to.
   *
   * @param chunkKey a chunk's stored key
   * @throws IllegalArgumentException if it is not one
   */
  public static byte[] headKeyOf(byte[] chunkKey) {
    if (!isChunkKey(chunkKey) || chunkKey.length < KEY_PREFIX) {
      throw new IllegalArgumentException("not a chunk key");
    }
    byte[] head = new byte[chunkKey.length - KEY_PREFIX + 1];
    head[0] = (byte) (chunkKey[0] & 0x0F);
    System.arraycopy(chunkKey, KEY_PREFIX, head, 1, head.length - 1);
    return head;
  }

  /**
   * Returns whether a stored key is a chunk of the list at {@code headKey} (of any collection id).
   *
   * @param storedKey any stored key
   * @param headKey a list's stored key (db byte, key)
   */
  public static boolean isChunkOf(byte[] storedKey, byte[] headKey) {
    return isChunkKey(storedKey)
        && storedKey.length - KEY_PREFIX == headKey.length - 1
        && (storedKey[0] & 0x0F) == headKey[0]
        && Arrays.equals(storedKey, KEY_PREFIX, storedKey.length, headKey, 1, headKey.length);
  }

  /** Returns the collection id in a chunk's stored key. */
  public static long idOf(byte[] chunkKey) {
    return getLong(chunkKey, 1);
  }

  /** Returns the chunk number in a chunk's stored key. */
  public static int numberOf(byte[] chunkKey) {
    return ((chunkKey[9] & 0xFF) << 24)
        | ((chunkKey[10] & 0xFF) << 16)
        | ((chunkKey[11] & 0xFF) << 8)
        | (chunkKey[12] & 0xFF);
  }

  private static void putLong(byte[] out, int at, long v) {
    for (int i = 0; i < 8; i++) {
      out[at + i] = (byte) (v >>> (56 - 8 * i));
    }
  }

  private static long getLong(byte[] in, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (in[at + i] & 0xFF);
    }
    return v;
  }

  /**
   * A chunked list's index, decoded: its collection id, the next chunk number, and per chunk (head
   * to tail) its number, element count and payload size. Mutable; not thread-safe.
   */
  public static final class Index implements ChunkIndex {
    private final long id;
    private int nextNumber;
    private int size;
    private int[] numbers;
    private int[] counts;
    private int[] bytes;
    private java.util.HashSet<Integer> listed;

    /**
     * An empty index.
     *
     * @param id the collection id
     * @param nextNumber the next chunk number to give out
     */
    public Index(long id, int nextNumber) {
      this.id = id;
      this.nextNumber = nextNumber;
      this.numbers = new int[8];
      this.counts = new int[8];
      this.bytes = new int[8];
    }

    /** Returns the collection id. */
    @Override
    public long id() {
      return id;
    }

    /** Returns the number of chunks. */
    @Override
    public int chunks() {
      return size;
    }

    /** Returns the chunk number at a position. */
    @Override
    public int number(int i) {
      return numbers[i];
    }

    /** Returns the element count of the chunk at a position. */
    public int count(int i) {
      return counts[i];
    }

    /** Returns the payload bytes of the chunk at a position. */
    public int bytes(int i) {
      return bytes[i];
    }

    /** Returns a fresh chunk number. */
    public int takeNumber() {
      return nextNumber++;
    }

    /** Returns the number the next {@link #takeNumber} gives. */
    public int nextNumber() {
      return nextNumber;
    }

    /** Returns the total element count. */
    public long total() {
      long t = 0;
      for (int i = 0; i < size; i++) {
        t += counts[i];
      }
      return t;
    }

    /**
     * Appends a chunk at the tail.
     *
     * @param number its number
     * @param count its elements, at least 1
     * @param payloadBytes its payload's size
     */
    public void add(int number, int count, int payloadBytes) {
      if (size == numbers.length) {
        numbers = Arrays.copyOf(numbers, size * 2);
        counts = Arrays.copyOf(counts, size * 2);
        bytes = Arrays.copyOf(bytes, size * 2);
      }
      numbers[size] = number;
      counts[size] = count;
      bytes[size] = payloadBytes;
      size++;
      if (listed != null) {
        listed.add(number);
      }
    }

    /** Returns whether a chunk of that number is listed. */
    @Override
    public boolean contains(int number) {
      if (listed == null) {
        listed = new java.util.HashSet<>();
        for (int i = 0; i < size; i++) {
          listed.add(numbers[i]);
        }
      }
      return listed.contains(number);
    }

    /** Returns the head payload. */
    public byte[] encode() {
      int length = 1 + 8 + Varint.size(nextNumber) + Varint.size(size);
      for (int i = 0; i < size; i++) {
        length += Varint.size(numbers[i]) + Varint.size(counts[i]) + Varint.size(bytes[i]);
      }
      byte[] out = new byte[length];
      out[0] = CHUNKED;
      putLong(out, 1, id);
      int pos = Varint.write(out, 9, nextNumber);
      pos = Varint.write(out, pos, size);
      for (int i = 0; i < size; i++) {
        pos = Varint.write(out, pos, numbers[i]);
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
      }
      return out;
    }

    /**
     * Returns the index a head payload holds, checking it.
     *
     * @param payload a chunked list's head payload
     * @throws IllegalArgumentException if it is malformed: another encoding, no chunks, an empty
     *     chunk, a number at or above the next number or listed twice, bytes after the last chunk
     */
    public static Index decode(byte[] payload) {
      if (payload.length < 11 || payload[0] != CHUNKED) {
        throw new IllegalArgumentException("not a chunked list head");
      }
      long[] at = {9};
      long next = Varint.read(payload, at);
      long chunks = Varint.read(payload, at);
      if (next > Integer.MAX_VALUE || chunks < 1 || chunks > payload.length) {
        throw new IllegalArgumentException("chunked list head out of range");
      }
      Index index = new Index(getLong(payload, 1), (int) next);
      for (long i = 0; i < chunks; i++) {
        long number = Varint.read(payload, at);
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        if (number >= next
            || count < 1
            || count > Integer.MAX_VALUE
            || size > Integer.MAX_VALUE
            || index.contains((int) number)) {
          throw new IllegalArgumentException("chunked list head lists a bad chunk");
        }
        index.add((int) number, (int) count, (int) size);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last chunk of a list head");
      }
      return index;
    }
  }
}
