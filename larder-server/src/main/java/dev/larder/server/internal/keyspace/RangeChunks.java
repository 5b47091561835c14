package dev.larder.server.internal.keyspace;

import java.util.Arrays;
import java.util.HashSet;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The chunked form of a large set or hash (set payload encoding 3, hash payload marker {@code 80
 * 00}; the reference is {@code docs/spec/server-value-layout.md}): the head payload, which is the
 * collection's index by ranges of the 32-bit hash of its members or fields ({@link
 * ScanCursor#hash}, the order SSCAN's and HSCAN's cursors walk), and its chunks.
 *
 * <pre>
 * head payload:
 *   bytes       marker: a set's 03 (its encoding), a hash's 80 00 (a count varint no hash
 *               payload is written with: zero in two bytes)
 *   8 bytes     collection id, big-endian: unique to this chunked collection
 *   varint      next chunk number (above every number in use)
 *   varint      chunks, at least 1
 *   chunks x:   varint number, 4 bytes lowest hash (big-endian, unsigned; the first chunk's is 0,
 *               each higher than the one before), varint entries (at least 1), varint payload bytes
 *
 * chunk i holds the entries whose key's hash h has low(i) &lt;= h &lt; low(i + 1) (the last: to
 * 2^32 - 1); an entry's key is a set's member, a hash's field
 *
 * chunk stored key: as a list chunk's ({@link ListChunks}): 0x80 | db, collection id, number, key
 * chunk stored value: a value of the collection's type (ValueLayout, no expiry, no flags) whose
 * payload is a packed payload of that type ({@link SetPayload} encoding 0, 1 or 2; {@link
 * HashPayload}) holding the chunk's entries
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Ranges of the key hash let an entry's chunk be found by a binary search of the head, so
 * SISMEMBER, SADD, HGET and HSET read and write one chunk; the SCAN cursor, a position in the same
 * hash order, maps onto the chunks, so a page reads only the chunks it returns. A range never
 * splits a group of keys of equal hash, which the cursor relies on.
 *
 * <p>Stateless and thread-safe; {@link Index} is a mutable value owned by one thread.
 */
public final class RangeChunks {
  /** A chunked set's head payload starts with this: set payload encoding 3. */
  private static final byte[] SET_MARKER = {3};

  /** A chunked hash's head payload starts with this: a count varint of zero in two bytes. */
  private static final byte[] HASH_MARKER = {(byte) 0x80, 0};

  /** Returns the head marker of a chunked collection of that type (set or hash). */
  static byte[] marker(ValueType type) {
    return switch (type) {
      case SET -> SET_MARKER;
      case HASH -> HASH_MARKER;
      default -> throw new IllegalArgumentException("no range-chunked form for " + type);
    };
  }

  /** Returns whether the type has a range-chunked form. */
  static boolean chunks(ValueType type) {
    return type == ValueType.SET || type == ValueType.HASH;
  }

  private RangeChunks() {}

  /**
   * Returns whether a payload of that type is a chunked collection's head.
   *
   * @param type a value type (false for types without this form)
   * @param payload its payload
   */
  public static boolean isHead(ValueType type, byte[] payload) {
    return chunks(type) && startsWith(payload, 0, payload.length, marker(type));
  }

  /**
   * Returns whether stored value bytes are a chunked set's or hash's head, reading only its header.
   *
   * @param stored stored value bytes
   */
  public static boolean isHeadValue(byte[] stored) {
    if (stored.length < 2) {
      return false;
    }
    int typeBits = stored[0] & 0b1_0011;
    if (typeBits != ValueType.SET.code() && typeBits != ValueType.HASH.code()) {
      return false;
    }
    ValueLayout.Header h = ValueLayout.header(stored);
    return chunks(h.type())
        && startsWith(stored, h.payloadOffset(), stored.length, marker(h.type()));
  }

  private static boolean startsWith(byte[] b, int from, int to, byte[] prefix) {
    return to - from >= prefix.length
        && Arrays.equals(b, from, from + prefix.length, prefix, 0, prefix.length);
  }

  /**
   * A chunked set's or hash's index, decoded: its collection id, the next chunk number, and per
   * chunk (in hash order) its number, lowest hash, entry count and payload size. Mutable; not
   * thread-safe.
   */
  public static final class Index implements ChunkIndex {
    private final long id;
    private int nextNumber;
    private int size;
    private int[] numbers = new int[8];
    private int[] lows = new int[8];
    private int[] counts = new int[8];
    private int[] bytes = new int[8];
    private HashSet<Integer> listed;

    /**
     * An empty index.
     *
     * @param id the collection id
     * @param nextNumber the next chunk number to give out
     */
    public Index(long id, int nextNumber) {
      this.id = id;
      this.nextNumber = nextNumber;
    }

    @Override
    public long id() {
      return id;
    }

    /** Returns the number of chunks. */
    public int chunks() {
      return size;
    }

    /** Returns the chunk number at a position. */
    public int number(int i) {
      return numbers[i];
    }

    /** {@inheritDoc} A set's or hash's head names every chunk itself: {@code read} is not used. */
    @Override
    public boolean forEachNumber(IntFunction<byte[]> read, IntConsumer visit) {
      for (int i = 0; i < size; i++) {
        visit.accept(numbers[i]);
      }
      return true;
    }

    /** Returns the lowest hash of the chunk at a position, 0 to 2^32 - 1. */
    public long low(int i) {
      return Integer.toUnsignedLong(lows[i]);
    }

    /** Returns the entry count of the chunk at a position. */
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

    /**
     * Appends a chunk after the last.
     *
     * @param number its number
     * @param low its lowest hash, above the last chunk's (0 for the first)
     * @param count its entries, at least 1
     * @param payloadBytes its payload's size
     */
    public void add(int number, long low, int count, int payloadBytes) {
      if (size == numbers.length) {
        numbers = Arrays.copyOf(numbers, size * 2);
        lows = Arrays.copyOf(lows, size * 2);
        counts = Arrays.copyOf(counts, size * 2);
        bytes = Arrays.copyOf(bytes, size * 2);
      }
      numbers[size] = number;
      lows[size] = (int) low;
      counts[size] = count;
      bytes[size] = payloadBytes;
      size++;
      if (listed != null) {
        listed.add(number);
      }
    }

    /** Returns whether a chunk of that number is listed. */
    public boolean contains(int number) {
      if (listed == null) {
        listed = new HashSet<>();
        for (int i = 0; i < size; i++) {
          listed.add(numbers[i]);
        }
      }
      return listed.contains(number);
    }

    /**
     * Returns the head payload.
     *
     * @param type the collection's type, set or hash
     */
    public byte[] encode(ValueType type) {
      byte[] marker = marker(type);
      int m = marker.length;
      int length = m + 8 + Varint.size(nextNumber) + Varint.size(size);
      for (int i = 0; i < size; i++) {
        length += Varint.size(numbers[i]) + 4 + Varint.size(counts[i]) + Varint.size(bytes[i]);
      }
      byte[] out = new byte[length];
      System.arraycopy(marker, 0, out, 0, m);
      for (int b = 0; b < 8; b++) {
        out[m + b] = (byte) (id >>> (56 - 8 * b));
      }
      int pos = Varint.write(out, m + 8, nextNumber);
      pos = Varint.write(out, pos, size);
      for (int i = 0; i < size; i++) {
        pos = Varint.write(out, pos, numbers[i]);
        for (int b = 0; b < 4; b++) {
          out[pos++] = (byte) (lows[i] >>> (24 - 8 * b));
        }
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
      }
      return out;
    }

    /**
     * Returns the index a head payload holds, checking it.
     *
     * @param type the collection's type, set or hash
     * @param payload a chunked set's or hash's head payload
     * @throws IllegalArgumentException if it is malformed: another marker, no chunks, an empty
     *     chunk, a number at or above the next number or listed twice, a first low hash other than
     *     0, low hashes not ascending, bytes after the last chunk
     */
    public static Index decode(ValueType type, byte[] payload) {
      int m = marker(type).length;
      if (payload.length < m + 10 || !isHead(type, payload)) {
        throw new IllegalArgumentException("not a chunked " + type + " head");
      }
      long id = 0;
      for (int b = 0; b < 8; b++) {
        id = (id << 8) | (payload[m + b] & 0xFF);
      }
      long[] at = {m + 8L};
      long next = Varint.read(payload, at);
      long chunks = Varint.read(payload, at);
      if (next > Integer.MAX_VALUE || chunks < 1 || chunks > payload.length) {
        throw new IllegalArgumentException("chunked head out of range");
      }
      Index index = new Index(id, (int) next);
      long lastLow = -1;
      for (long i = 0; i < chunks; i++) {
        long number = Varint.read(payload, at);
        int pos = (int) at[0];
        if (pos + 4 > payload.length) {
          throw new IllegalArgumentException("chunked head cut short");
        }
        long low = 0;
        for (int b = 0; b < 4; b++) {
          low = (low << 8) | (payload[pos + b] & 0xFF);
        }
        at[0] = pos + 4L;
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        if (number >= next
            || count < 1
            || count > Integer.MAX_VALUE
            || size > Integer.MAX_VALUE
            || (i == 0 ? low != 0 : low <= lastLow)
            || index.contains((int) number)) {
          throw new IllegalArgumentException("chunked head lists a bad chunk");
        }
        lastLow = low;
        index.add((int) number, low, (int) count, (int) size);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last chunk of a head");
      }
      return index;
    }
  }
}
