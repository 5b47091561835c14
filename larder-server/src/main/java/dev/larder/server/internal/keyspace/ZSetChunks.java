package dev.larder.server.internal.keyspace;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The chunked form of a large sorted set (sorted-set payload encodings 2 and 3; the reference is
 * {@code docs/spec/server-value-layout.md}, "Chunked sorted sets"): the head payload, which indexes
 * two sides of the same entries through index pages, and the pages' and chunks' payloads.
 *
 * <pre>
 * head payload (encoding 2):
 *   byte        encoding (2)
 *   8 bytes     collection id, big-endian: unique to this chunked sorted set
 *   varint      next number (above every chunk and page number in use)
 *   side        by score: its index pages, in (score, member) order
 *   side        by member: its index pages, in (member hash, member) order
 * side:
 *   varint      pages, at least 1
 *   pages x:    ref
 * ref (a page's in the head, a chunk's in a page):
 *   varint number, varint entries (at least 1), varint payload bytes (a page's: of its chunks),
 *   low entry: the first entry it holds (score 8 bytes IEEE 754 big-endian, varint length, member)
 *
 * index page payload (encoding 3), the stored value of a chunk key:
 *   byte        encoding (3)
 *   varint      chunks, at least 1
 *   chunks x:   ref
 *
 * chunk payload: a sorted-set payload in the PACKED layout (byte 0, varint count, entries) of any
 * count, its entries in its side's order; the by-score side in Redis's order, the by-member side
 * by member hash ({@link ScanCursor#hash}) then member bytes
 *
 * chunk and page stored keys: as a list chunk's ({@link ChunkKey#of}); both sides draw
 * their numbers from the head's one counter
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The by-score side answers ranks (the refs' entry counts), score and member ranges (the refs'
 * low entries, searched without reading the chunks they name) and pops; the by-member side answers
 * a member's score (ZSCORE, and what ZADD and ZREM need to find the entry on the other side) and
 * walks ZSCAN's hash order. Each entry is stored once in each side, as Redis keeps a member in its
 * dict and its skiplist. A change reads the head, one page and one chunk of each side it touches,
 * and writes back the chunks it changed (in place, their numbers kept), the pages it changed (under
 * fresh numbers: a page is never overwritten, so the pages an old head names stay as it names them
 * until whoever replaced the head has removed them, the list's argument in {@link ListChunks}) and
 * the head, whose size is one ref per page: about one per 64 chunks.
 *
 * <p>Stateless and thread-safe; {@link Index} is a mutable value owned by one thread.
 */
public final class ZSetChunks {
  /** The head payload's encoding, its first byte. */
  public static final int CHUNKED = 2;

  /** An index page's payload encoding, its first byte. */
  public static final int PAGE = 3;

  private ZSetChunks() {}

  /** Returns whether a sorted-set payload is a chunked sorted set's head. */
  public static boolean isHead(byte[] payload) {
    return payload.length > 0 && payload[0] == CHUNKED;
  }

  /**
   * Returns whether stored value bytes are a chunked sorted set's head, reading only its header.
   *
   * @param stored stored value bytes
   */
  public static boolean isHeadValue(byte[] stored) {
    // the type's three bits are bits 4, 1 and 0 of the tag: a sorted set's are 1, 0, 0
    if (stored.length < 2 || (stored[0] & 0b1_0011) != 0b1_0000) {
      return false;
    }
    ValueLayout.Header h = ValueLayout.header(stored);
    return h.type() == ValueType.ZSET
        && h.payloadOffset() < stored.length
        && stored[h.payloadOffset()] == CHUNKED;
  }

  /**
   * A page's record in the head or a chunk's in a page.
   *
   * @param number its chunk number
   * @param count its entries, at least 1
   * @param bytes its payload bytes (a page's: of its chunks together)
   * @param low its first entry
   */
  public record Ref(int number, int count, int bytes, Entry low) {}

  /** Returns the payload bytes of an entry: score, member length and member. */
  static int entrySize(Entry e) {
    return 8 + PayloadBytes.chunkSize(e.member());
  }

  /** Returns a chunk's payload: the PACKED layout of these entries, in the order given. */
  public static byte[] encodeChunk(List<Entry> entries) {
    PayloadEncoder chunk = chunk(entries);
    byte[] out = new byte[chunk.length()];
    chunk.encodeAt(out, 0);
    return out;
  }

  /**
   * Returns a chunk's payload, as {@link #encodeChunk} makes it, to be encoded where it is stored.
   *
   * @param entries the chunk's entries in order, not changed until it is encoded
   */
  static PayloadEncoder chunk(List<Entry> entries) {
    return new PayloadEncoder() {
      private final int length = chunkLength(entries);

      @Override
      public int length() {
        return length;
      }

      @Override
      public void encodeAt(byte[] out, int pos) {
        out[pos] = ZSetPayload.PACKED;
        int at = Varint.write(out, pos + 1, entries.size());
        for (Entry e : entries) {
          at = PayloadBytes.putDbl(out, at, e.score());
          at = PayloadBytes.putChunk(out, at, e.member());
        }
      }
    };
  }

  private static int chunkLength(List<Entry> entries) {
    int length = 1 + Varint.size(entries.size());
    for (Entry e : entries) {
      length += entrySize(e);
    }
    return length;
  }

  /**
   * Returns a chunk's entries in their stored order, in a fresh mutable list.
   *
   * @throws IllegalArgumentException if it is not a PACKED-layout payload or is empty
   */
  public static List<Entry> decodeChunk(byte[] payload) {
    if (payload.length < 2 || payload[0] != ZSetPayload.PACKED) {
      throw new IllegalArgumentException("not a sorted-set chunk");
    }
    // One pass over the entries (ZSetPayload.entries finds every offset first, then reads each
    // entry again from its offset): a change decodes the chunks it reaches.
    long[] cursor = {1};
    int n = PayloadBytes.count(payload, cursor, 9);
    if (n == 0) {
      throw new IllegalArgumentException("an empty sorted-set chunk");
    }
    List<Entry> entries = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int at = (int) cursor[0];
      if (at + 8 > payload.length) {
        throw new IllegalArgumentException("a sorted-set chunk cut short");
      }
      double score = PayloadBytes.dbl(payload, at);
      cursor[0] = at + 8L;
      int length = PayloadBytes.chunkLength(payload, cursor, payload.length);
      int from = (int) cursor[0];
      entries.add(new Entry(Arrays.copyOfRange(payload, from, from + length), score));
      cursor[0] = (long) from + length;
    }
    return entries;
  }

  /**
   * Returns where each entry of a chunk starts (at its score), reading only the member lengths: a
   * chunk searched and changed in place ({@link ZSetSide}) instead of decoded.
   *
   * @param payload a chunk's payload
   * @param expected the entry count its ref gives
   * @throws IllegalArgumentException if it is not a PACKED-layout payload, is cut short, or holds
   *     another number of entries
   */
  static int[] entryStarts(byte[] payload, int expected) {
    if (payload.length < 2 || payload[0] != ZSetPayload.PACKED) {
      throw new IllegalArgumentException("not a sorted-set chunk");
    }
    long[] cursor = {1};
    int n = PayloadBytes.count(payload, cursor, 9);
    if (n == 0) {
      throw new IllegalArgumentException("an empty sorted-set chunk");
    }
    if (n != expected) {
      throw new IllegalArgumentException("a sorted-set chunk differs from its ref");
    }
    int[] starts = new int[n];
    for (int i = 0; i < n; i++) {
      int at = (int) cursor[0];
      if (at + 8 > payload.length) {
        throw new IllegalArgumentException("a sorted-set chunk cut short");
      }
      starts[i] = at;
      cursor[0] = at + 8L;
      int length = PayloadBytes.chunkLength(payload, cursor, payload.length);
      cursor[0] += length;
    }
    return starts;
  }

  /** Returns the entry of a chunk that starts at {@code start} (see {@link #entryStarts}). */
  static Entry entryAt(byte[] payload, int start) {
    long[] cursor = {start + 8L};
    int length = PayloadBytes.chunkLength(payload, cursor, payload.length);
    int from = (int) cursor[0];
    return new Entry(
        Arrays.copyOfRange(payload, from, from + length), PayloadBytes.dbl(payload, start));
  }

  /**
   * Returns a chunk's payload as its stored bytes, already encoded (a chunk changed in place).
   *
   * @param payload the payload, not changed until it is encoded
   */
  static PayloadEncoder encoded(byte[] payload) {
    return new PayloadEncoder() {
      @Override
      public int length() {
        return payload.length;
      }

      @Override
      public void encodeAt(byte[] out, int pos) {
        System.arraycopy(payload, 0, out, pos, payload.length);
      }
    };
  }

  /** Returns an index page's payload listing these chunks. */
  public static byte[] encodePage(List<Ref> chunks) {
    PayloadEncoder page = page(chunks);
    byte[] out = new byte[page.length()];
    page.encodeAt(out, 0);
    return out;
  }

  /**
   * Returns an index page's payload, as {@link #encodePage} makes it, to be encoded where it is
   * stored.
   *
   * @param chunks the refs it lists, not changed until it is encoded
   */
  static PayloadEncoder page(List<Ref> chunks) {
    return new PayloadEncoder() {
      private final int length = 1 + refsSize(chunks);

      @Override
      public int length() {
        return length;
      }

      @Override
      public void encodeAt(byte[] out, int pos) {
        out[pos] = PAGE;
        writeRefs(out, pos + 1, chunks);
      }
    };
  }

  /**
   * Returns the chunks an index page lists.
   *
   * @param payload an index page's payload
   * @param nextNumber its head's next number, above every number listed
   * @throws IllegalArgumentException if it is malformed: another encoding, no chunk, an empty
   *     chunk, a number at or above the next number or listed twice, bytes after the last chunk
   */
  public static List<Ref> decodePage(byte[] payload, int nextNumber) {
    if (payload.length < 2 || payload[0] != PAGE) {
      throw new IllegalArgumentException("not a sorted-set index page");
    }
    long[] at = {1};
    List<Ref> refs = readRefs(payload, at, nextNumber);
    if (at[0] != payload.length) {
      throw new IllegalArgumentException("bytes after the last chunk of a sorted-set index page");
    }
    refuseRepeats(refs, List.of());
    return refs;
  }

  private static int refsSize(List<Ref> refs) {
    int length = Varint.size(refs.size());
    for (Ref r : refs) {
      length +=
          Varint.size(r.number())
              + Varint.size(r.count())
              + Varint.size(r.bytes())
              + entrySize(r.low());
    }
    return length;
  }

  private static int writeRefs(byte[] out, int pos, List<Ref> refs) {
    pos = Varint.write(out, pos, refs.size());
    for (Ref r : refs) {
      pos = Varint.write(out, pos, r.number());
      pos = Varint.write(out, pos, r.count());
      pos = Varint.write(out, pos, r.bytes());
      pos = PayloadBytes.putDbl(out, pos, r.low().score());
      pos = PayloadBytes.putChunk(out, pos, r.low().member());
    }
    return pos;
  }

  private static List<Ref> readRefs(byte[] p, long[] at, int nextNumber) {
    long n = Varint.read(p, at);
    if (n < 1 || n > p.length) {
      throw new IllegalArgumentException("sorted-set index out of range");
    }
    List<Ref> refs = new ArrayList<>((int) n);
    for (long i = 0; i < n; i++) {
      long number = Varint.read(p, at);
      long count = Varint.read(p, at);
      long bytes = Varint.read(p, at);
      if (number >= nextNumber
          || count < 1
          || count > Integer.MAX_VALUE
          || bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("sorted-set index lists a bad chunk");
      }
      double score = PayloadBytes.dbl(p, (int) at[0]);
      at[0] += 8;
      int length = PayloadBytes.chunkLength(p, at, p.length);
      int from = (int) at[0];
      byte[] member = Arrays.copyOfRange(p, from, from + length);
      at[0] += length;
      refs.add(new Ref((int) number, (int) count, (int) bytes, new Entry(member, score)));
    }
    return refs;
  }

  private static void refuseRepeats(List<Ref> a, List<Ref> b) {
    int[] numbers = new int[a.size() + b.size()];
    int k = 0;
    for (Ref r : a) {
      numbers[k++] = r.number();
    }
    for (Ref r : b) {
      numbers[k++] = r.number();
    }
    Arrays.sort(numbers);
    for (int i = 1; i < numbers.length; i++) {
      if (numbers[i] == numbers[i - 1]) {
        throw new IllegalArgumentException("a sorted-set index lists a number twice");
      }
    }
  }

  /**
   * A chunked sorted set's head, decoded: its collection id, the next number, and the refs of each
   * side's index pages in order. Mutable; not thread-safe.
   */
  public static final class Index implements ChunkIndex {
    private final long id;
    private int nextNumber;
    private final List<Ref> byScore;
    private final List<Ref> byMember;

    /**
     * @param id the collection id
     * @param nextNumber the next number to give out
     * @param byScore the by-score side's pages, in order
     * @param byMember the by-member side's pages, in order
     */
    public Index(long id, int nextNumber, List<Ref> byScore, List<Ref> byMember) {
      this.id = id;
      this.nextNumber = nextNumber;
      this.byScore = byScore;
      this.byMember = byMember;
    }

    @Override
    public long id() {
      return id;
    }

    /** Returns the number the next {@link #takeNumber} gives. */
    public int nextNumber() {
      return nextNumber;
    }

    /** Returns a fresh number. */
    public int takeNumber() {
      return nextNumber++;
    }

    /** Returns the by-score side's page refs (the list itself). */
    public List<Ref> byScore() {
      return byScore;
    }

    /** Returns the by-member side's page refs (the list itself). */
    public List<Ref> byMember() {
      return byMember;
    }

    /** Returns the number of entries: the by-score pages' counts together. */
    public long size() {
      long n = 0;
      for (Ref r : byScore) {
        n += r.count();
      }
      return n;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Reads each index page of both sides ({@link ZSetChunks#decodePage}).
     */
    @Override
    public boolean forEachNumber(IntFunction<byte[]> read, IntConsumer visit) {
      boolean whole = true;
      for (List<Ref> side : List.of(byScore, byMember)) {
        for (Ref page : side) {
          byte[] payload = read.apply(page.number());
          if (payload == null) {
            whole = false;
          } else {
            for (Ref chunk : decodePage(payload, nextNumber)) {
              visit.accept(chunk.number());
            }
          }
          visit.accept(page.number());
        }
      }
      return whole;
    }

    /** Returns the head payload (encoding {@link ZSetChunks#CHUNKED}). */
    public byte[] encode() {
      byte[] out =
          new byte[1 + 8 + Varint.size(nextNumber) + refsSize(byScore) + refsSize(byMember)];
      out[0] = CHUNKED;
      for (int b = 0; b < 8; b++) {
        out[1 + b] = (byte) (id >>> (56 - 8 * b));
      }
      int pos = Varint.write(out, 9, nextNumber);
      pos = writeRefs(out, pos, byScore);
      writeRefs(out, pos, byMember);
      return out;
    }

    /**
     * Returns the index a head payload holds, checking it.
     *
     * @param payload a chunked sorted set's head payload
     * @throws IllegalArgumentException if it is malformed: another encoding, a side with no page,
     *     an empty page, a number at or above the next number or listed twice, sides of different
     *     sizes, bytes after the last page
     */
    public static Index decode(byte[] payload) {
      if (payload.length < 11 || payload[0] != CHUNKED) {
        throw new IllegalArgumentException("not a chunked sorted-set head");
      }
      long id = 0;
      for (int b = 0; b < 8; b++) {
        id = (id << 8) | (payload[1 + b] & 0xFF);
      }
      long[] at = {9};
      long next = Varint.read(payload, at);
      if (next > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("chunked sorted-set head out of range");
      }
      List<Ref> byScore = readRefs(payload, at, (int) next);
      List<Ref> byMember = readRefs(payload, at, (int) next);
      if (at[0] != payload.length) {
        throw new IllegalArgumentException("bytes after the last page of a sorted-set head");
      }
      refuseRepeats(byScore, byMember);
      Index index = new Index(id, (int) next, byScore, byMember);
      long members = 0;
      for (Ref r : byMember) {
        members += r.count();
      }
      if (members != index.size()) {
        throw new IllegalArgumentException("a sorted-set head's sides differ in size");
      }
      return index;
    }
  }
}
