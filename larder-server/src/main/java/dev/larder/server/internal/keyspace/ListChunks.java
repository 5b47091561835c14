package dev.larder.server.internal.keyspace;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The chunked form of a large list (list payload encodings 2 and 4; the reference is {@code
 * docs/spec/server-value-layout.md}): the head payload, which is the list's index, its index pages,
 * and the stored keys of its chunks and pages.
 *
 * <pre>
 * head payload, encoding 4 (paged; what is written):
 *   byte        encoding (4)
 *   8 bytes     collection id, big-endian: unique to this chunked list
 *   varint      next number (above every chunk and page number in use)
 *   varint      entries, at least 1
 *   entries x:  varint number &lt;&lt; 1 | P, varint elements (at least 1), varint payload bytes,
 *               [varint chunks (at least 1), when P: an index page]
 * head payload, encoding 2 (chunked; read, never written): as 4 with chunks only and no P bit
 *
 * index page payload (encoding 5), the stored value of a chunk key:
 *   byte        encoding (5)
 *   varint      chunks, at least 1
 *   chunks x:   varint number, varint elements (at least 1), varint payload bytes
 *
 * chunk (or page) stored key: {@link ChunkKey}
 *
 * chunk stored value: a list value (ValueLayout, type list, no expiry, no flags) whose payload is
 * the chunk's elements in {@link ListPayload#CHUNK} encoding (encoding 1 without backlens; stored
 * front-coded, {@link ListPayload#CHUNK_FRONT}, when shorter), or an
 * index page's payload
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The head lists the chunks at both ends of the list one by one and the chunks between in index
 * pages of up to {@code ListBody.PAGE_CHUNKS} chunks, so a push or pop rewrites an end chunk and a
 * head of a few dozen entries, not an index of every chunk ({@link ListBody}'s write-back keeps
 * that shape). A page is never overwritten: a changed page is written under a fresh number, so a
 * head's pages stay as it names them until whoever replaced the head has removed them.
 *
 * <p>Stateless and thread-safe; {@link Index} is a mutable value owned by one thread.
 */
public final class ListChunks {
  /** The first chunked encoding's code (every chunk in the head), read but no longer written. */
  public static final int CHUNKED = 2;

  /** The paged head encoding's code, the head payload's first byte. */
  public static final int PAGED = 4;

  /** An index page's payload encoding, its first byte. */
  public static final int PAGE = 5;

  private ListChunks() {}

  /** Returns whether a list payload is a chunked list's head. */
  public static boolean isHead(byte[] payload) {
    return payload.length > 0 && (payload[0] == PAGED || payload[0] == CHUNKED);
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
        && (stored[h.payloadOffset()] == PAGED || stored[h.payloadOffset()] == CHUNKED);
  }

  /**
   * Calls {@code visit} with the stored key of every chunk and index page a head names, each page's
   * chunks before the page itself.
   *
   * @param headKey the list's stored key
   * @param index its head, decoded
   * @param read reads a stored key's list payload (a page's), null if absent
   * @param visit given each key
   * @return false if a page was missing (its chunks were not visited), else true
   * @throws IllegalArgumentException if a page is malformed
   */
  public static boolean forEachKey(
      byte[] headKey, Index index, Function<byte[], byte[]> read, Consumer<byte[]> visit) {
    long id = index.id();
    return index.forEachNumber(
        number -> read.apply(ChunkKey.of(headKey, id, number)),
        number -> visit.accept(ChunkKey.of(headKey, id, number)));
  }

  /**
   * A chunked list's head, decoded: its collection id, the next chunk number, and its entries head
   * to tail, each a chunk (its number, element count and payload size) or an index page (its
   * number, and the element count, payload size and number of the chunks it lists). An index page's
   * own content decodes to an index of chunks only ({@link #decodePage}). Mutable; not thread-safe.
   */
  public static final class Index implements ChunkIndex {
    private final long id;
    private int nextNumber;
    private int size;
    private int[] numbers;
    private int[] counts;
    private int[] bytes;
    private int[] chunks;

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
      this.chunks = new int[8];
    }

    /** Returns the collection id. */
    @Override
    public long id() {
      return id;
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

    /** Returns the number of entries (chunks and pages). */
    public int entries() {
      return size;
    }

    /** Returns the chunk or page number at a position. */
    public int number(int i) {
      return numbers[i];
    }

    /** Returns the element count of the entry at a position (a page's: of all its chunks). */
    public int count(int i) {
      return counts[i];
    }

    /** Returns the payload bytes of the entry at a position (a page's: of all its chunks). */
    public int bytes(int i) {
      return bytes[i];
    }

    /** Returns whether the entry at a position is an index page. */
    public boolean isPage(int i) {
      return chunks[i] > 0;
    }

    /** Returns the number of chunks an index page at a position lists (0 for a chunk). */
    public int pageChunks(int i) {
      return chunks[i];
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
      append(number, count, payloadBytes, 0);
    }

    /**
     * Appends an index page at the tail.
     *
     * @param number its number
     * @param count the elements of its chunks, at least 1
     * @param payloadBytes the payload bytes of its chunks
     * @param pageChunks the chunks it lists, at least 1
     */
    public void addPage(int number, int count, int payloadBytes, int pageChunks) {
      if (pageChunks < 1) {
        throw new IllegalArgumentException("an index page lists at least one chunk");
      }
      append(number, count, payloadBytes, pageChunks);
    }

    private void append(int number, int count, int payloadBytes, int pageChunks) {
      if (size == numbers.length) {
        numbers = Arrays.copyOf(numbers, size * 2);
        counts = Arrays.copyOf(counts, size * 2);
        bytes = Arrays.copyOf(bytes, size * 2);
        chunks = Arrays.copyOf(chunks, size * 2);
      }
      numbers[size] = number;
      counts[size] = count;
      bytes[size] = payloadBytes;
      chunks[size] = pageChunks;
      size++;
    }

    /** Returns the head payload (encoding {@link ListChunks#PAGED}). */
    public byte[] encode() {
      int length = 1 + 8 + Varint.size(nextNumber) + Varint.size(size);
      for (int i = 0; i < size; i++) {
        length +=
            Varint.size(((long) numbers[i] << 1) | (chunks[i] > 0 ? 1 : 0))
                + Varint.size(counts[i])
                + Varint.size(bytes[i])
                + (chunks[i] > 0 ? Varint.size(chunks[i]) : 0);
      }
      byte[] out = new byte[length];
      out[0] = PAGED;
      ChunkKey.putLong(out, 1, id);
      int pos = Varint.write(out, 9, nextNumber);
      pos = Varint.write(out, pos, size);
      for (int i = 0; i < size; i++) {
        pos = Varint.write(out, pos, ((long) numbers[i] << 1) | (chunks[i] > 0 ? 1 : 0));
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
        if (chunks[i] > 0) {
          pos = Varint.write(out, pos, chunks[i]);
        }
      }
      return out;
    }

    /**
     * Returns the payload of an index page listing the chunks at positions {@code from} to {@code
     * to} (exclusive), which must all be chunks.
     */
    public byte[] encodePage(int from, int to) {
      int length = 1 + Varint.size(to - from);
      for (int i = from; i < to; i++) {
        if (chunks[i] > 0) {
          throw new IllegalArgumentException("an index page lists chunks only");
        }
        length += Varint.size(numbers[i]) + Varint.size(counts[i]) + Varint.size(bytes[i]);
      }
      byte[] out = new byte[length];
      out[0] = PAGE;
      int pos = Varint.write(out, 1, to - from);
      for (int i = from; i < to; i++) {
        pos = Varint.write(out, pos, numbers[i]);
        pos = Varint.write(out, pos, counts[i]);
        pos = Varint.write(out, pos, bytes[i]);
      }
      return out;
    }

    /**
     * Returns the index a head payload holds, checking it.
     *
     * @param payload a chunked list's head payload, encoding {@link ListChunks#CHUNKED} or {@link
     *     ListChunks#PAGED}
     * @throws IllegalArgumentException if it is malformed: another encoding, no entries, an empty
     *     entry, a number at or above the next number or listed twice, bytes after the last entry
     */
    public static Index decode(byte[] payload) {
      if (payload.length < 11 || (payload[0] != CHUNKED && payload[0] != PAGED)) {
        throw new IllegalArgumentException("not a chunked list head");
      }
      boolean paged = payload[0] == PAGED;
      long[] at = {9};
      long next = Varint.read(payload, at);
      long entries = Varint.read(payload, at);
      if (next > Integer.MAX_VALUE || entries < 1 || entries > payload.length) {
        throw new IllegalArgumentException("chunked list head out of range");
      }
      Index index = new Index(ChunkKey.getLong(payload, 1), (int) next);
      for (long i = 0; i < entries; i++) {
        long number = Varint.read(payload, at);
        boolean page = paged && (number & 1) != 0;
        if (paged) {
          number >>>= 1;
        }
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        long pageChunks = page ? Varint.read(payload, at) : 0;
        if (number >= next
            || count < 1
            || count > Integer.MAX_VALUE
            || size > Integer.MAX_VALUE
            || (page && (pageChunks < 1 || pageChunks > Integer.MAX_VALUE))) {
          throw new IllegalArgumentException("chunked list head lists a bad entry");
        }
        index.append((int) number, (int) count, (int) size, (int) pageChunks);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last entry of a list head");
      }
      index.refuseRepeats();
      return index;
    }

    /**
     * Returns the chunks an index page lists, as an index of chunks only (collection id 0).
     *
     * @param payload an index page's payload (encoding {@link ListChunks#PAGE})
     * @param nextNumber the head's next number, above every number listed
     * @throws IllegalArgumentException if it is malformed: another encoding, no chunk, an empty
     *     chunk, a number at or above the next number or listed twice, bytes after the last chunk
     */
    public static Index decodePage(byte[] payload, int nextNumber) {
      if (payload.length < 2 || payload[0] != PAGE) {
        throw new IllegalArgumentException("not a list index page");
      }
      long[] at = {1};
      long entries = Varint.read(payload, at);
      if (entries < 1 || entries > payload.length) {
        throw new IllegalArgumentException("list index page out of range");
      }
      Index index = new Index(0, nextNumber);
      for (long i = 0; i < entries; i++) {
        long number = Varint.read(payload, at);
        long count = Varint.read(payload, at);
        long size = Varint.read(payload, at);
        if (number >= nextNumber
            || count < 1
            || count > Integer.MAX_VALUE
            || size > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("list index page lists a bad chunk");
        }
        index.add((int) number, (int) count, (int) size);
      }
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last chunk of a list index page");
      }
      index.refuseRepeats();
      return index;
    }

    /** Refuses a number listed twice (sorting a copy: no boxing on the path of every push). */
    private void refuseRepeats() {
      int[] sorted = Arrays.copyOf(numbers, size);
      Arrays.sort(sorted);
      for (int i = 1; i < sorted.length; i++) {
        if (sorted[i] == sorted[i - 1]) {
          throw new IllegalArgumentException("a list head or index page lists a number twice");
        }
      }
    }
  }
}
