package dev.larder.server.internal.keyspace;

import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The chunked form of a large set or hash (set payload encoding 4, hash payload marker {@code 80 80
 * 00}; encoding 3 and marker {@code 80 00} are read, not written; the reference is {@code
 * docs/spec/server-value-layout.md}): the head payload, which is the collection's index by ranges
 * of the 32-bit hash of its members or fields ({@link ScanCursor#hash}, the order SSCAN's and
 * HSCAN's cursors walk), and its index pages.
 *
 * <pre>
 * head payload, paged (what is written):
 *   bytes       marker: a set's 04 (its encoding), a hash's 80 80 00 (a count varint no hash
 *               payload is written with: zero in three bytes)
 *   8 bytes     collection id, big-endian: unique to this chunked collection
 *   varint      next number (above every chunk and page number in use)
 *   varint      entries, at least 1
 *   entries x:  varint number &lt;&lt; 1 | P, 4 bytes lowest hash (big-endian, unsigned; the first
 *               entry's is 0, each higher than the one before), varint entries of the collection
 *               (at least 1), varint payload bytes, [varint chunks (at least 1), when P: an index
 *               page]
 * head payload, chunked (set encoding 03, hash marker 80 00; read, never written): as the paged
 *               head with chunks only and no P bit
 *
 * index page payload, the stored value (of the collection's type) of a chunk key:
 *   byte        05
 *   varint      chunks, at least 1
 *   chunks x:   varint number, 4 bytes lowest hash, varint entries (at least 1), varint payload
 *               bytes; the first chunk's lowest hash is the page's, each higher than the one before
 *
 * chunk i holds the entries whose key's hash h has low(i) &lt;= h &lt; low(i + 1) (the last: to
 * 2^32 - 1), a page's chunks in its place; an entry's key is a set's member, a hash's field
 *
 * chunk (or page) stored key: {@link ChunkKey}
 * chunk stored value: a value of the collection's type (ValueLayout, no expiry, no flags) whose
 * payload is a packed payload of that type ({@link SetPayload} encoding 0, 1 or 2; {@link
 * HashPayload}) holding the chunk's entries
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Ranges of the key hash let an entry's chunk be found by a binary search of the head (and of
 * one index page), so SISMEMBER, SADD, HGET and HSET read and write one chunk; the SCAN cursor, a
 * position in the same hash order, maps onto the chunks, so a page reads only the chunks it
 * returns. A range never splits a group of keys of equal hash, which the cursor relies on.
 *
 * <p>A head that listed every chunk was rewritten whole by every change, about 10 bytes a chunk: a
 * set of 200,000 members built 1,000 at a time copied it quadratically. Now a head of more than
 * {@code RangeBody.HEAD_CHUNKS} chunks lists index pages of up to {@code RangeBody.PAGE_CHUNKS}
 * chunks each, so a change rewrites its chunk, the one page that lists it (under a fresh number: a
 * page is never overwritten, as a list's is not) and a head of a few entries.
 *
 * <p>Stateless and thread-safe; {@link Index} is a mutable value owned by one thread.
 */
public final class RangeChunks {
  /** The chunked set head's encoding (every chunk in the head), read but no longer written. */
  static final int SET_CHUNKED = 3;

  /** The paged set head's encoding, the head payload's first byte. */
  static final int SET_PAGED = 4;

  /** An index page's payload encoding, its first byte. */
  static final int PAGE = 5;

  private static final byte[] SET_CHUNKED_MARKER = {SET_CHUNKED};
  private static final byte[] SET_PAGED_MARKER = {SET_PAGED};

  /** A chunked hash head (read only) starts with this: a count varint of zero in two bytes. */
  private static final byte[] HASH_CHUNKED_MARKER = {(byte) 0x80, 0};

  /** A paged hash head starts with this: a count varint of zero in three bytes. */
  private static final byte[] HASH_PAGED_MARKER = {(byte) 0x80, (byte) 0x80, 0};

  /** Returns the marker of the paged head of that type (set or hash): what is written. */
  static byte[] marker(ValueType type) {
    return switch (type) {
      case SET -> SET_PAGED_MARKER;
      case HASH -> HASH_PAGED_MARKER;
      default -> throw new IllegalArgumentException("no range-chunked form for " + type);
    };
  }

  /** Returns the marker of the chunked head of that type, read but no longer written. */
  private static byte[] chunkedMarker(ValueType type) {
    return type == ValueType.SET ? SET_CHUNKED_MARKER : HASH_CHUNKED_MARKER;
  }

  /** Returns whether the type has a range-chunked form. */
  static boolean chunks(ValueType type) {
    return type == ValueType.SET || type == ValueType.HASH;
  }

  private RangeChunks() {}

  /**
   * Returns whether a payload of that type is a chunked collection's head (paged or chunked).
   *
   * @param type a value type (false for types without this form)
   * @param payload its payload
   */
  public static boolean isHead(ValueType type, byte[] payload) {
    return chunks(type) && headMarker(type, payload, 0, payload.length) > 0;
  }

  /**
   * Returns the length of the head marker at {@code from}: the paged one's, the chunked one's, or 0
   * if it is neither (a packed payload).
   */
  private static int headMarker(ValueType type, byte[] b, int from, int to) {
    byte[] paged = marker(type);
    if (startsWith(b, from, to, paged)) {
      return paged.length;
    }
    byte[] chunked = chunkedMarker(type);
    return startsWith(b, from, to, chunked) ? chunked.length : 0;
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
    return chunks(h.type()) && headMarker(h.type(), stored, h.payloadOffset(), stored.length) > 0;
  }

  private static boolean startsWith(byte[] b, int from, int to, byte[] prefix) {
    return to - from >= prefix.length
        && Arrays.equals(b, from, from + prefix.length, prefix, 0, prefix.length);
  }

  /**
   * A chunked set's or hash's index, decoded: its collection id, the next number, and its entries
   * in hash order, each a chunk (its number, lowest hash, entry count and payload size) or an index
   * page (its number, its first chunk's lowest hash, and the entry count, payload size and number
   * of the chunks it lists). An index page's own content decodes to an index of chunks only ({@link
   * #decodePage}). Mutable; not thread-safe.
   */
  public static final class Index implements ChunkIndex {
    private final long id;
    private int nextNumber;
    private int size;
    private int[] numbers;
    private int[] lows;
    private int[] counts;
    private int[] bytes;
    private int[] chunks;

    /**
     * An empty index.
     *
     * @param id the collection id
     * @param nextNumber the next number to give out
     */
    public Index(long id, int nextNumber) {
      this(id, nextNumber, 8);
    }

    /**
     * An empty index with room for {@code capacity} entries before its arrays grow.
     *
     * @param id the collection id
     * @param nextNumber the next number to give out
     * @param capacity the entries expected, at least 1
     */
    Index(long id, int nextNumber, int capacity) {
      this.id = id;
      this.nextNumber = nextNumber;
      int room = Math.max(1, capacity);
      numbers = new int[room];
      lows = new int[room];
      counts = new int[room];
      bytes = new int[room];
      chunks = new int[room];
    }

    @Override
    public long id() {
      return id;
    }

    /** Returns the number of entries (chunks and pages). */
    public int entries() {
      return size;
    }

    /** Returns the chunk or page number at a position. */
    public int number(int i) {
      return numbers[i];
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads each index page the head lists ({@link #decodePage}).
     */
    @Override
    public boolean forEachNumber(IntFunction<byte[]> read, IntConsumer visit) {
      boolean whole = true;
      for (int i = 0; i < size; i++) {
        if (chunks[i] > 0) {
          byte[] page = read.apply(numbers[i]);
          if (page == null) {
            whole = false;
          } else {
            Index listed = decodePage(page, nextNumber);
            for (int c = 0; c < listed.size; c++) {
              visit.accept(listed.numbers[c]);
            }
          }
        }
        visit.accept(numbers[i]);
      }
      return whole;
    }

    /** Returns the lowest hash of the entry at a position, 0 to 2^32 - 1. */
    public long low(int i) {
      return Integer.toUnsignedLong(lows[i]);
    }

    /** Returns the collection's entries the chunk (or page) at a position holds. */
    public int count(int i) {
      return counts[i];
    }

    /** Returns the payload bytes of the chunk (or a page's chunks) at a position. */
    public int bytes(int i) {
      return bytes[i];
    }

    /** Returns the number of chunks an index page at a position lists (0 for a chunk). */
    public int pageChunks(int i) {
      return chunks[i];
    }

    /** Returns the collection's size: the entries of every chunk. */
    public long total() {
      long t = 0;
      for (int i = 0; i < size; i++) {
        t += counts[i];
      }
      return t;
    }

    /** Returns a fresh number. */
    public int takeNumber() {
      return nextNumber++;
    }

    /** Returns the number the next {@link #takeNumber} gives. */
    public int nextNumber() {
      return nextNumber;
    }

    /**
     * Appends a chunk after the last entry.
     *
     * @param number its number
     * @param low its lowest hash, above the last entry's (0 for the first)
     * @param count its entries, at least 1
     * @param payloadBytes its payload's size
     */
    public void add(int number, long low, int count, int payloadBytes) {
      append(number, low, count, payloadBytes, 0);
    }

    /**
     * Appends an index page after the last entry.
     *
     * @param number its number
     * @param low its first chunk's lowest hash, above the last entry's (0 for the first)
     * @param count the entries of its chunks, at least 1
     * @param payloadBytes the payload bytes of its chunks
     * @param pageChunks the chunks it lists, at least 1
     */
    public void addPage(int number, long low, int count, int payloadBytes, int pageChunks) {
      if (pageChunks < 1) {
        throw new IllegalArgumentException("an index page lists at least one chunk");
      }
      append(number, low, count, payloadBytes, pageChunks);
    }

    private void append(int number, long low, int count, int payloadBytes, int pageChunks) {
      if (size == numbers.length) {
        numbers = Arrays.copyOf(numbers, size * 2);
        lows = Arrays.copyOf(lows, size * 2);
        counts = Arrays.copyOf(counts, size * 2);
        bytes = Arrays.copyOf(bytes, size * 2);
        chunks = Arrays.copyOf(chunks, size * 2);
      }
      numbers[size] = number;
      lows[size] = (int) low;
      counts[size] = count;
      bytes[size] = payloadBytes;
      chunks[size] = pageChunks;
      size++;
    }

    /**
     * Returns the head payload, paged (set encoding 4, hash marker {@code 80 80 00}).
     *
     * @param type the collection's type, set or hash
     */
    public byte[] encode(ValueType type) {
      byte[] marker = marker(type);
      int m = marker.length;
      int length = m + 8 + Varint.size(nextNumber) + Varint.size(size);
      for (int i = 0; i < size; i++) {
        length +=
            Varint.size(((long) numbers[i] << 1) | (chunks[i] > 0 ? 1 : 0))
                + 4
                + Varint.size(counts[i])
                + Varint.size(bytes[i])
                + (chunks[i] > 0 ? Varint.size(chunks[i]) : 0);
      }
      byte[] out = new byte[length];
      System.arraycopy(marker, 0, out, 0, m);
      ChunkKey.putLong(out, m, id);
      int pos = Varint.write(out, m + 8, nextNumber);
      pos = Varint.write(out, pos, size);
      for (int i = 0; i < size; i++) {
        pos = Varint.write(out, pos, ((long) numbers[i] << 1) | (chunks[i] > 0 ? 1 : 0));
        pos = putLow(out, pos, lows[i]);
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
        if (chunks[i] > 0) {
          pos = Varint.write(out, pos, chunks[i]);
        }
      }
      return out;
    }

    /** Returns the payload of an index page listing every entry of this index, all chunks. */
    public byte[] encodePage() {
      int length = 1 + Varint.size(size);
      for (int i = 0; i < size; i++) {
        if (chunks[i] > 0) {
          throw new IllegalArgumentException("an index page lists chunks only");
        }
        length += Varint.size(numbers[i]) + 4 + Varint.size(counts[i]) + Varint.size(bytes[i]);
      }
      byte[] out = new byte[length];
      out[0] = PAGE;
      int pos = Varint.write(out, 1, size);
      for (int i = 0; i < size; i++) {
        pos = Varint.write(out, pos, numbers[i]);
        pos = putLow(out, pos, lows[i]);
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
      }
      return out;
    }

    private static int putLow(byte[] out, int pos, int low) {
      for (int b = 0; b < 4; b++) {
        out[pos++] = (byte) (low >>> (24 - 8 * b));
      }
      return pos;
    }

    private static long readLow(byte[] payload, long[] at) {
      int pos = (int) at[0];
      if (pos + 4 > payload.length) {
        throw new IllegalArgumentException("chunked head cut short");
      }
      long low = 0;
      for (int b = 0; b < 4; b++) {
        low = (low << 8) | (payload[pos + b] & 0xFF);
      }
      at[0] = pos + 4L;
      return low;
    }

    /**
     * Returns the index a head payload holds, paged or chunked, checking it.
     *
     * @param type the collection's type, set or hash
     * @param payload a chunked set's or hash's head payload
     * @throws IllegalArgumentException if it is malformed: another marker, no entries, an empty
     *     entry, a page of no chunk, a number at or above the next number or listed twice, a first
     *     low hash other than 0, low hashes not ascending, bytes after the last entry
     */
    public static Index decode(ValueType type, byte[] payload) {
      int m = chunks(type) ? headMarker(type, payload, 0, payload.length) : 0;
      if (m == 0 || payload.length < m + 10) {
        throw new IllegalArgumentException("not a chunked " + type + " head");
      }
      boolean paged = startsWith(payload, 0, payload.length, marker(type));
      long[] at = {m + 8L};
      long next = Varint.read(payload, at);
      long entries = Varint.read(payload, at);
      if (next > Integer.MAX_VALUE || entries < 1 || entries > payload.length) {
        throw new IllegalArgumentException("chunked head out of range");
      }
      Index index = new Index(ChunkKey.getLong(payload, m), (int) next, (int) entries);
      for (long i = 0; i < entries; i++) {
        long number = Varint.read(payload, at);
        boolean page = paged && (number & 1) != 0;
        if (paged) {
          number >>>= 1;
        }
        long low = readLow(payload, at);
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        long pageChunks = page ? Varint.read(payload, at) : 0;
        index.check(number, low, count, size);
        if (page && (pageChunks < 1 || pageChunks > Integer.MAX_VALUE)) {
          throw new IllegalArgumentException("chunked head lists a page of no chunk");
        }
        index.append((int) number, low, (int) count, (int) size, (int) pageChunks);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last entry of a head");
      }
      if (index.lows[0] != 0) {
        throw new IllegalArgumentException("a chunked head's first lowest hash is not 0");
      }
      index.refuseRepeats();
      return index;
    }

    /**
     * Returns the chunks an index page lists, as an index of chunks only (collection id 0).
     *
     * @param payload an index page's payload
     * @param nextNumber the head's next number, above every number listed
     * @throws IllegalArgumentException if it is malformed: another encoding, no chunk, an empty
     *     chunk, a number at or above the next number or listed twice, low hashes not ascending,
     *     bytes after the last chunk
     */
    public static Index decodePage(byte[] payload, int nextNumber) {
      if (payload.length < 2 || payload[0] != PAGE) {
        throw new IllegalArgumentException("not a set or hash index page");
      }
      long[] at = {1};
      long entries = Varint.read(payload, at);
      if (entries < 1 || entries > payload.length) {
        throw new IllegalArgumentException("index page out of range");
      }
      Index index = new Index(0, nextNumber, (int) entries);
      for (long i = 0; i < entries; i++) {
        long number = Varint.read(payload, at);
        long low = readLow(payload, at);
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        index.check(number, low, count, size);
        index.add((int) number, low, (int) count, (int) size);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last chunk of an index page");
      }
      index.refuseRepeats();
      return index;
    }

    /** Refuses an entry that cannot follow the ones decoded so far. */
    private void check(long number, long low, long count, long payloadBytes) {
      if (number >= nextNumber
          || count < 1
          || count > Integer.MAX_VALUE
          || payloadBytes > Integer.MAX_VALUE
          || (size > 0 && low <= low(size - 1))) {
        throw new IllegalArgumentException("a chunked head or index page lists a bad entry");
      }
    }

    /** Refuses a number listed twice (sorting a copy: no boxing on the path of every change). */
    private void refuseRepeats() {
      int[] sorted = Arrays.copyOf(numbers, size);
      Arrays.sort(sorted);
      for (int i = 1; i < sorted.length; i++) {
        if (sorted[i] == sorted[i - 1]) {
          throw new IllegalArgumentException("a head or index page lists a number twice");
        }
      }
    }
  }
}
