package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A sorted set's payload, in one of three encodings chosen by its size and scores (reference:
 * {@code docs/spec/server-value-layout.md}, "Sorted-set payload"). An entry is a member and its
 * score; entries are ordered by score, then by member in unsigned byte order, as Redis orders them.
 *
 * <pre>
 *   byte 0: encoding
 *   0 PACKED  varint count, count x entry in order. At most 128 entries, members of at most 64 bytes.
 *   1 TABLE   varint count,
 *             count x u32 little-endian: heap offset of the entry of each rank (rank order),
 *             count x u32 little-endian: the rank of each member (ascending member order),
 *             heap: count x entry, in any order.
 *   4 PACKED_COMPACT  as PACKED, each entry's score compact: varint v, then
 *             v even: the score is the integer zigzag(v / 2) (no more bytes);
 *             v = 1:  the score's 8 bytes (IEEE 754 big-endian) follow.
 *   entry:    score (8 bytes, IEEE 754 big-endian, never NaN), varint length, member bytes
 * </pre>
 *
 * <p>A writer picks PACKED_COMPACT for a PACKED set when it is the smaller of the two (scores that
 * are integers, as counters, timestamps and ranks are, take 1 to 8 bytes instead of 8), as Redis's
 * listpack keeps an integer score as an integer. Encodings 2 and 3 are a chunked set's ({@link
 * ZSetChunks}), whose chunks are always PACKED.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A PACKED set is rewritten whole on every change, as Redis's listpack is. A TABLE answers a
 * rank (ZRANGE, ZRANK after the lookup) by one offset read, a member (ZSCORE, ZRANK) by a binary
 * search of the member table, a score range by a binary search of the rank table, all in place
 * without decoding. An insertion appends the entry to the heap, inserts its offset in the rank
 * table and its rank in the member table (raising the ranks at or after it); a removal cuts the
 * entry from the heap and lowers the offsets and ranks after it. Each change makes one new array of
 * the whole payload (the cache stores values as byte arrays): a copy of n entries and a pass over
 * the 8 bytes of tables each has, and no per-entry object. A set grows from PACKED to TABLE and
 * never shrinks back, as Redis's do.
 *
 * <p>Every read checks its bounds and throws {@link IllegalArgumentException} for a malformed
 * payload. Stateless and thread-safe.
 */
public final class ZSetPayload {
  static final int PACKED = 0;
  static final int TABLE = 1;
  static final int PACKED_COMPACT = 4;

  /** A compact score's varint when the score's 8 bytes follow. */
  private static final long WIDE_SCORE = 1;

  /** Integer scores of smaller magnitude are exact doubles: written compact. */
  private static final double COMPACT_LIMIT = 0x1p53;

  /** The most entries a PACKED set holds (Redis's {@code zset-max-listpack-entries}). */
  public static final int PACKED_MAX = 128;

  /** The longest member a PACKED set holds (Redis's {@code zset-max-listpack-value}). */
  public static final int PACKED_MEMBER_MAX = 64;

  /** Redis's order of entries: score (with -0 equal to 0), then member. */
  public static final Comparator<Entry> ORDER =
      (a, b) -> {
        int c = compareScores(a.score(), b.score());
        return c != 0 ? c : Arrays.compareUnsigned(a.member(), b.member());
      };

  private ZSetPayload() {}

  /**
   * A member and its score.
   *
   * @param member the member's bytes
   * @param score its score, never NaN
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  public record Entry(byte[] member, double score) {}

  /** Compares two scores as Redis does ({@code <}), so -0 and 0 are equal. */
  public static int compareScores(double a, double b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /**
   * Returns the payload of a sorted set of these entries, in the smallest encoding that fits.
   *
   * @param entries entries with distinct members, in any order
   */
  public static byte[] encode(List<Entry> entries) {
    return encode(entries, true);
  }

  /**
   * Returns the payload of a sorted set of these entries in PACKED or TABLE only (never
   * PACKED_COMPACT): the form a DUMP payload carries ({@link DumpPayload}), whose format predates
   * compact scores.
   *
   * @param entries entries with distinct members, in any order
   */
  public static byte[] encodeWide(List<Entry> entries) {
    return encode(entries, false);
  }

  private static byte[] encode(List<Entry> entries, boolean compact) {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(ORDER);
    boolean small = sorted.size() <= PACKED_MAX;
    int heap = 0;
    int compactHeap = 0;
    for (Entry e : sorted) {
      small &= e.member().length <= PACKED_MEMBER_MAX;
      int member = PayloadBytes.chunkSize(e.member());
      heap += 8 + member;
      compactHeap += compactScoreSize(e.score()) + member;
    }
    int n = sorted.size();
    if (small && compact && compactHeap < heap) {
      byte[] out = new byte[1 + Varint.size(n) + compactHeap];
      out[0] = PACKED_COMPACT;
      int pos = Varint.write(out, 1, n);
      for (Entry e : sorted) {
        pos = putCompactScore(out, pos, e.score());
        pos = PayloadBytes.putChunk(out, pos, e.member());
      }
      return out;
    }
    int start = 1 + Varint.size(n) + (small ? 0 : 8 * n);
    byte[] out = new byte[start + heap];
    out[0] = (byte) (small ? PACKED : TABLE);
    Varint.write(out, 1, n);
    int pos = start;
    for (int i = 0; i < n; i++) {
      if (!small) {
        PayloadBytes.putU32(out, start - 8 * n + 4 * i, pos - start);
      }
      pos = PayloadBytes.putDbl(out, pos, sorted.get(i).score());
      pos = PayloadBytes.putChunk(out, pos, sorted.get(i).member());
    }
    if (!small) {
      // members in order, each with its rank
      Integer[] byMember = new Integer[n];
      for (int i = 0; i < n; i++) {
        byMember[i] = i;
      }
      Arrays.sort(
          byMember,
          (a, b) -> Arrays.compareUnsigned(sorted.get(a).member(), sorted.get(b).member()));
      for (int i = 0; i < n; i++) {
        PayloadBytes.putU32(out, start - 4 * n + 4 * i, byMember[i]);
      }
    }
    return out;
  }

  /** Whether a score is written compact: an integer of magnitude below 2^53, not -0. */
  private static boolean compactInteger(double score) {
    return score == Math.rint(score)
        && Math.abs(score) < COMPACT_LIMIT
        && Double.doubleToRawLongBits(score) != Double.doubleToRawLongBits(-0.0);
  }

  /** Returns the bytes a score takes in PACKED_COMPACT. */
  static int compactScoreSize(double score) {
    if (!compactInteger(score)) {
      return 9;
    }
    long n = (long) score;
    return Varint.size(((n << 1) ^ (n >> 63)) << 1);
  }

  /** Writes a score in PACKED_COMPACT at {@code pos}; returns the position after. */
  private static int putCompactScore(byte[] out, int pos, double score) {
    if (!compactInteger(score)) {
      pos = Varint.write(out, pos, WIDE_SCORE);
      return PayloadBytes.putDbl(out, pos, score);
    }
    long n = (long) score;
    return Varint.write(out, pos, ((n << 1) ^ (n >> 63)) << 1);
  }

  /**
   * Reads a PACKED_COMPACT score at {@code cursor[0]} and advances the cursor past it.
   *
   * @throws IllegalArgumentException for a truncated score, an odd varint other than 1, an integer
   *     of magnitude 2^53 or more, or a NaN
   */
  private static double compactScore(byte[] p, long[] cursor) {
    long v = Varint.read(p, cursor);
    if (v == WIDE_SCORE) {
      double d = PayloadBytes.dbl(p, (int) cursor[0]);
      cursor[0] += 8;
      return d;
    }
    if ((v & 1) != 0) {
      throw new IllegalArgumentException("bad compact score");
    }
    long zigzag = v >>> 1;
    long n = (zigzag >>> 1) ^ -(zigzag & 1);
    if (Math.abs(n) >= (1L << 53)) {
      throw new IllegalArgumentException("compact score out of range");
    }
    return n;
  }

  /**
   * Returns a reader of it.
   *
   * @param p a payload
   * @throws IllegalArgumentException for an unknown encoding or a count its bytes cannot hold
   */
  public static View view(byte[] p) {
    if (p.length == 0 || (p[0] != PACKED && p[0] != TABLE && p[0] != PACKED_COMPACT)) {
      throw new IllegalArgumentException("unknown sorted-set encoding");
    }
    return p[0] == TABLE ? new View(p, null) : new View(p, packedOffsets(p));
  }

  /**
   * Returns every entry, in order.
   *
   * @param p a payload
   */
  public static List<Entry> entries(byte[] p) {
    View v = view(p);
    List<Entry> out = new ArrayList<>(v.size());
    for (int i = 0; i < v.size(); i++) {
      out.add(new Entry(v.member(i), v.score(i)));
    }
    return out;
  }

  /**
   * Returns the payload with {@code member} at {@code score}, added or moved.
   *
   * @param p a payload, or null for an empty set
   * @param member the member
   * @param score its score, not NaN
   */
  public static byte[] put(byte[] p, byte[] member, double score) {
    if (Double.isNaN(score)) {
      throw new IllegalArgumentException("NaN score");
    }
    if (p == null) {
      return encode(List.of(new Entry(member, score)));
    }
    View v = view(p);
    if (v.table) {
      int at = v.rank(member);
      return v.insert(member, score, at < 0 ? v : view(v.delete(at)));
    }
    List<Entry> all = entries(p);
    all.removeIf(e -> Arrays.equals(e.member(), member));
    all.add(new Entry(member, score));
    return encode(all);
  }

  /**
   * Returns the payload with every entry of {@code updates} added or moved. Up to 8 are put one by
   * one (each a splice into a TABLE); more rebuild the set once, so a large batch does not copy the
   * payload once per entry.
   *
   * @param p a payload, or null for an empty set
   * @param updates entries with distinct members, scores not NaN
   */
  public static byte[] putAll(byte[] p, List<Entry> updates) {
    if (updates.size() <= 8) {
      for (Entry e : updates) {
        p = put(p, e.member(), e.score());
      }
      return p;
    }
    java.util.TreeMap<byte[], Double> all = new java.util.TreeMap<>(Arrays::compareUnsigned);
    if (p != null) {
      for (Entry e : entries(p)) {
        all.put(e.member(), e.score());
      }
    }
    for (Entry e : updates) {
      all.put(e.member(), e.score());
    }
    List<Entry> out = new ArrayList<>(all.size());
    all.forEach((m, s) -> out.add(new Entry(m, s)));
    return encode(out);
  }

  /**
   * Returns the payload without {@code member} (an empty payload when it was the last), or null if
   * it was not a member.
   *
   * @param p a payload
   * @param member the member
   */
  public static byte[] remove(byte[] p, byte[] member) {
    View v = view(p);
    int rank = v.rank(member);
    if (rank < 0) {
      return null;
    }
    if (v.table) {
      return v.delete(rank);
    }
    List<Entry> all = entries(p);
    all.remove(rank);
    return encode(all);
  }

  private static int[] packedOffsets(byte[] p) {
    boolean compact = p[0] == PACKED_COMPACT;
    long[] cursor = {1};
    int n = PayloadBytes.count(p, cursor, compact ? 2 : 9);
    int[] at = new int[n];
    for (int i = 0; i < n; i++) {
      at[i] = (int) cursor[0];
      if (compact) {
        compactScore(p, cursor);
      } else {
        cursor[0] += 8;
      }
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      cursor[0] += len;
    }
    if (compact && cursor[0] != p.length) {
      throw new IllegalArgumentException("bytes after the last entry");
    }
    return at;
  }

  /**
   * Random access to a payload's entries by rank and by member, in place. Not thread-safe; one
   * command's use.
   */
  public static final class View {
    private final byte[] p;
    private final int[] packed;
    private final boolean table;
    private final boolean compact;
    private final int count;
    private final int byRank;
    private final int byMember;
    private final int heap;

    private View(byte[] p, int[] packed) {
      this.p = p;
      this.packed = packed;
      this.table = packed == null;
      this.compact = p[0] == PACKED_COMPACT;
      long[] cursor = {1};
      this.count = PayloadBytes.count(p, cursor, table ? 17 : compact ? 2 : 9);
      this.byRank = (int) cursor[0];
      this.byMember = byRank + 4 * count;
      this.heap = byMember + 4 * count;
    }

    /** Returns the number of entries. */
    public int size() {
      return count;
    }

    /** Returns where the entry of a rank starts in the payload. */
    private int entryAt(int rank) {
      if (rank < 0 || rank >= count) {
        throw new IndexOutOfBoundsException("rank " + rank);
      }
      if (!table) {
        return packed[rank];
      }
      int o = PayloadBytes.u32(p, byRank + 4 * rank);
      if (o > p.length - heap - 9) {
        throw new IllegalArgumentException("offset past the heap");
      }
      return heap + o;
    }

    /**
     * Returns the score at a rank.
     *
     * @param rank 0 to size - 1
     */
    public double score(int rank) {
      int at = entryAt(rank);
      return compact ? compactScore(p, new long[] {at}) : PayloadBytes.dbl(p, at);
    }

    /** Returns where the member's length varint of the entry at {@code at} starts. */
    private int memberAt(int at) {
      if (!compact) {
        return at + 8;
      }
      long[] cursor = {at};
      compactScore(p, cursor);
      return (int) cursor[0];
    }

    /**
     * Returns the member at a rank (a fresh array).
     *
     * @param rank 0 to size - 1
     */
    public byte[] member(int rank) {
      long[] cursor = {memberAt(entryAt(rank))};
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      return Arrays.copyOfRange(p, (int) cursor[0], (int) cursor[0] + len);
    }

    /** Compares the member at a rank with {@code m}, unsigned, without copying it. */
    public int compareMember(int rank, byte[] m) {
      long[] cursor = {memberAt(entryAt(rank))};
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      int from = (int) cursor[0];
      return Arrays.compareUnsigned(p, from, from + len, m, 0, m.length);
    }

    /** Compares the entry at a rank with (score, member) in Redis's order. */
    public int compare(int rank, double score, byte[] member) {
      int c = compareScores(score(rank), score);
      return c != 0 ? c : compareMember(rank, member);
    }

    /**
     * Returns the rank of {@code m}, or -1 if it is not a member.
     *
     * @param m a member
     */
    public int rank(byte[] m) {
      if (!table) {
        for (int i = 0; i < count; i++) {
          if (compareMember(i, m) == 0) {
            return i;
          }
        }
        return -1;
      }
      int j = memberSearch(m);
      return j < 0 ? -1 : memberRank(j);
    }

    /** The rank of the j-th member in member order. */
    private int memberRank(int j) {
      int r = PayloadBytes.u32(p, byMember + 4 * j);
      if (r >= count) {
        throw new IllegalArgumentException("rank out of range");
      }
      return r;
    }

    /** Binary search of the member table: the position of m, or -(insertion point) - 1. */
    private int memberSearch(byte[] m) {
      int lo = 0;
      int hi = count - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = compareMember(memberRank(mid), m);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -(lo + 1);
    }

    /** The first rank whose entry is after (score, member): where it would be inserted. */
    private int insertionRank(double score, byte[] member) {
      int lo = 0;
      int hi = count;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (compare(mid, score, member) < 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    private int entrySize(int rank) {
      int at = entryAt(rank);
      long[] cursor = {at + 8};
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      return (int) cursor[0] + len - at;
    }

    /** TABLE only: the payload of {@code into} (this view or a smaller one) plus the entry. */
    private byte[] insert(byte[] member, double score, View into) {
      return into.insertAbsent(member, score);
    }

    private byte[] insertAbsent(byte[] member, double score) {
      int r = insertionRank(score, member);
      int j = -memberSearch(member) - 1;
      int n = count + 1;
      int heapLength = p.length - heap;
      int entry = 8 + PayloadBytes.chunkSize(member);
      int newByRank = 1 + Varint.size(n);
      int newByMember = newByRank + 4 * n;
      int newHeap = newByMember + 4 * n;
      byte[] out = new byte[newHeap + heapLength + entry];
      out[0] = TABLE;
      Varint.write(out, 1, n);
      System.arraycopy(p, byRank, out, newByRank, 4 * r);
      PayloadBytes.putU32(out, newByRank + 4 * r, heapLength);
      System.arraycopy(p, byRank + 4 * r, out, newByRank + 4 * r + 4, 4 * (count - r));
      for (int i = 0, k = 0; i < n; i++) {
        int rank;
        if (i == j) {
          rank = r;
        } else {
          int old = memberRank(k++);
          rank = old >= r ? old + 1 : old;
        }
        PayloadBytes.putU32(out, newByMember + 4 * i, rank);
      }
      System.arraycopy(p, heap, out, newHeap, heapLength);
      int pos = PayloadBytes.putDbl(out, newHeap + heapLength, score);
      PayloadBytes.putChunk(out, pos, member);
      return out;
    }

    /** TABLE only: the payload without the entry of a rank. */
    private byte[] delete(int r) {
      int o = entryAt(r) - heap;
      int entry = entrySize(r);
      int n = count - 1;
      int newByRank = 1 + Varint.size(n);
      int newByMember = newByRank + 4 * n;
      int newHeap = newByMember + 4 * n;
      byte[] out = new byte[newHeap + p.length - heap - entry];
      out[0] = TABLE;
      Varint.write(out, 1, n);
      for (int i = 0, k = 0; i < count; i++) {
        if (i != r) {
          int x = entryAt(i) - heap;
          PayloadBytes.putU32(out, newByRank + 4 * k++, x > o ? x - entry : x);
        }
      }
      for (int j = 0, k = 0; j < count; j++) {
        int rank = memberRank(j);
        if (rank != r) {
          PayloadBytes.putU32(out, newByMember + 4 * k++, rank > r ? rank - 1 : rank);
        }
      }
      System.arraycopy(p, heap, out, newHeap, o);
      System.arraycopy(p, heap + o + entry, out, newHeap + o, p.length - heap - o - entry);
      return out;
    }
  }
}
