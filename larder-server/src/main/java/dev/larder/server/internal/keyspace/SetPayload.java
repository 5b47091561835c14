package dev.larder.server.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * A set's payload, in one of three encodings chosen by its size (reference: {@code
 * docs/spec/server-value-layout.md}, "Set payload"):
 *
 * <pre>
 *   byte 0: encoding
 *   0 INTSET  byte width (2, 4 or 8), varint count, count x width bytes: signed little-endian
 *             integers, ascending. Only members that are canonical decimal longs; at most 512
 *             in a packed set; a chunk of a chunked set ({@link RangeChunks}) holds any number.
 *   1 PACKED  varint count, count x (varint length, bytes), ascending unsigned byte order.
 *             At most 128 members of at most 64 bytes.
 *   2 TABLE   varint count, count x u32 little-endian offset into the heap (ascending member
 *             order), then the heap: count x (varint length, bytes) in any order.
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A member is added to an INTSET or a PACKED set by one copy of the payload with the member
 * inserted in place (found by a binary search of the integers, or a walk of at most 128 members),
 * as Redis's intset and listpack are changed; a member that changes the encoding (or widens an
 * INTSET) rebuilds the set. A larger set is a TABLE: a member is found by a binary search over the
 * offsets (O(log n) comparisons, no decoding), an added member is appended to the heap and its
 * offset inserted in the table, a removed one is cut from the heap and the offsets after it
 * lowered. Each change still makes one new array of the whole payload (the cache stores values as
 * byte arrays), so a change costs a copy of n entries, memcpy-fast, and no per-member object. A set
 * grows from INTSET to PACKED to TABLE and never shrinks back, as Redis's sets do; an INTSET keeps
 * its width when members are removed, as Redis's does.
 *
 * <p>Members are byte strings; {@link #members} returns fresh arrays. Every read checks its bounds
 * and throws {@link IllegalArgumentException} for a malformed payload. Stateless and thread-safe.
 */
public final class SetPayload {
  static final int INTSET = 0;
  static final int PACKED = 1;
  static final int TABLE = 2;

  /** The most members an INTSET holds (Redis's {@code set-max-intset-entries}). */
  public static final int INTSET_MAX = 512;

  /** The most members a PACKED set holds. */
  public static final int PACKED_MAX = 128;

  /** The longest member a PACKED set holds. */
  public static final int PACKED_MEMBER_MAX = 64;

  private SetPayload() {}

  /**
   * Returns the payload of a set holding {@code members}, in the smallest encoding that fits.
   *
   * @param members distinct members (duplicates are dropped), in any order
   */
  public static byte[] encode(Collection<byte[]> members) {
    return encode(members, INTSET_MAX);
  }

  /**
   * Returns the payload of a set holding {@code members}, in the smallest encoding that fits, an
   * INTSET holding up to {@code intsetMax} members: a chunk of a chunked set holds integers as an
   * INTSET whatever their count (its size bounds them), a packed set up to {@link #INTSET_MAX}.
   *
   * @param members distinct members (duplicates are dropped), in any order
   * @param intsetMax the most members an INTSET may hold
   */
  static byte[] encode(Collection<byte[]> members, int intsetMax) {
    TreeSet<byte[]> sorted = new TreeSet<>(Arrays::compareUnsigned);
    sorted.addAll(members);
    if (sorted.size() <= intsetMax) {
      long[] ints = integers(sorted);
      if (ints != null) {
        return intset(ints);
      }
    }
    boolean small = sorted.size() <= PACKED_MAX;
    for (byte[] m : sorted) {
      small &= m.length <= PACKED_MEMBER_MAX;
    }
    return small ? packed(sorted) : table(new ArrayList<>(sorted));
  }

  /**
   * Returns its encoding's number.
   *
   * @param p a payload
   */
  public static int encoding(byte[] p) {
    if (p.length == 0 || (p[0] & 0xFF) > TABLE) {
      throw new IllegalArgumentException("unknown set encoding");
    }
    return p[0];
  }

  /**
   * Returns how many members it holds.
   *
   * @param p a payload
   */
  public static int size(byte[] p) {
    long[] cursor = {encoding(p) == INTSET ? 2 : 1};
    return PayloadBytes.count(p, cursor, 1);
  }

  /**
   * Returns whether it holds {@code m}.
   *
   * @param p a payload
   * @param m a member
   */
  public static boolean contains(byte[] p, byte[] m) {
    return switch (encoding(p)) {
      case INTSET -> {
        Long v = asLong(m);
        yield v != null && intsetSearch(p, v) >= 0;
      }
      case PACKED -> position(packedSearch(p, m)) >= 0;
      default -> new Table(p).search(m) >= 0;
    };
  }

  /**
   * Returns every member: intsets in numeric order, the others in unsigned byte order.
   *
   * @param p a payload
   */
  public static List<byte[]> members(byte[] p) {
    int n = size(p);
    List<byte[]> out = new ArrayList<>(n);
    switch (encoding(p)) {
      case INTSET -> {
        for (long v : intsetValues(p)) {
          out.add(Long.toString(v).getBytes(StandardCharsets.ISO_8859_1));
        }
      }
      case PACKED -> {
        long[] cursor = {1};
        PayloadBytes.count(p, cursor, 1);
        for (int i = 0; i < n; i++) {
          int len = PayloadBytes.chunkLength(p, cursor, p.length);
          int start = (int) cursor[0];
          out.add(Arrays.copyOfRange(p, start, start + len));
          cursor[0] = (long) start + len;
        }
      }
      default -> {
        Table t = new Table(p);
        for (int i = 0; i < n; i++) {
          out.add(t.member(i));
        }
      }
    }
    return out;
  }

  /**
   * Returns the member at a position of {@link #members}'s order, without decoding the others when
   * the encoding allows it (INTSET, TABLE).
   *
   * @param p a payload
   * @param i a position, 0 to size - 1
   */
  public static byte[] member(byte[] p, int i) {
    return switch (encoding(p)) {
      case INTSET -> {
        long[] cursor = {2};
        PayloadBytes.count(p, cursor, 1);
        int width = p[1];
        yield Long.toString(readInt(p, (int) cursor[0] + i * width, width))
            .getBytes(StandardCharsets.ISO_8859_1);
      }
      case PACKED -> packedMember(p, i);
      default -> new Table(p).member(i);
    };
  }

  /** The member at position {@code i} of a PACKED payload: a walk to it, the others not copied. */
  private static byte[] packedMember(byte[] p, int i) {
    long[] cursor = {1};
    int n = PayloadBytes.count(p, cursor, 1);
    if (i < 0 || i >= n) {
      throw new IndexOutOfBoundsException("no member at " + i + " of " + n);
    }
    int pos = (int) cursor[0];
    for (int k = 0; k < i; k++) {
      long at = memberAt(p, pos);
      pos = (int) at + (int) (at >>> 32);
    }
    long at = memberAt(p, pos);
    int start = (int) at;
    return Arrays.copyOfRange(p, start, start + (int) (at >>> 32));
  }

  /**
   * Reads the length of a member whose length starts at {@code pos}: the length in the high 32
   * bits, where its bytes start in the low 32. A PACKED member is at most {@link
   * #PACKED_MEMBER_MAX} bytes (most TABLE members are short too), so its length is one byte, read
   * without the varint loop (a walk of a hundred members is SADD's, SISMEMBER's and SPOP's cost on
   * a chunk of a large set).
   *
   * @throws IllegalArgumentException if it runs past the payload
   */
  private static long memberAt(byte[] p, int pos) {
    if (pos < p.length && p[pos] >= 0) {
      int len = p[pos];
      if (len > p.length - pos - 1) {
        throw new IllegalArgumentException("string longer than its payload");
      }
      return (long) len << 32 | (pos + 1);
    }
    long[] cursor = {pos};
    int len = PayloadBytes.chunkLength(p, cursor, p.length);
    return (long) len << 32 | cursor[0];
  }

  /**
   * Returns the payload with {@code m} added, or null if it was already a member.
   *
   * @param p a payload, or null for an empty set
   * @param m a member
   */
  public static byte[] add(byte[] p, byte[] m) {
    return add(p, m, INTSET_MAX);
  }

  /**
   * Returns the payload with {@code m} added, or null if it was already a member; an INTSET holds
   * up to {@code intsetMax} members (see {@link #encode(Collection, int)}). An added member that
   * keeps the encoding is inserted with one copy of the payload; one that changes it (or widens an
   * INTSET) rebuilds the set.
   *
   * @param p a payload, or null for an empty set
   * @param m a member
   * @param intsetMax the most members an INTSET may hold
   */
  static byte[] add(byte[] p, byte[] m, int intsetMax) {
    if (p == null) {
      return encode(List.of(m), intsetMax);
    }
    switch (encoding(p)) {
      case INTSET -> {
        Long v = asLong(m);
        if (v != null) {
          int at = intsetSearch(p, v);
          if (at >= 0) {
            return null;
          }
          if (size(p) < intsetMax && fits(v, p[1])) {
            return intsetInsert(p, -at - 1, v);
          }
        }
      }
      case PACKED -> {
        long found = packedSearch(p, m);
        if (position(found) >= 0) {
          return null;
        }
        if (size(p) < PACKED_MAX && m.length <= PACKED_MEMBER_MAX) {
          return packedInsert(p, offset(found), m);
        }
      }
      default -> {
        Table t = new Table(p);
        return t.search(m) >= 0 ? null : t.insert(m);
      }
    }
    if (contains(p, m)) {
      return null;
    }
    List<byte[]> all = members(p);
    all.add(m);
    return encode(all, intsetMax);
  }

  /** Whether {@code v} fits an INTSET member of {@code width} bytes. */
  private static boolean fits(long v, int width) {
    return width == 8 || (width == 4 ? v == (int) v : v == (short) v);
  }

  /** Returns the INTSET with {@code v} inserted at position {@code at}, at the same width. */
  private static byte[] intsetInsert(byte[] p, int at, long v) {
    int width = p[1];
    long[] cursor = {2};
    int n = PayloadBytes.count(p, cursor, width);
    int from = (int) cursor[0];
    int start = 2 + Varint.size(n + 1);
    byte[] out = new byte[start + (n + 1) * width];
    out[0] = INTSET;
    out[1] = (byte) width;
    Varint.write(out, 2, n + 1);
    System.arraycopy(p, from, out, start, at * width);
    for (int b = 0; b < width; b++) {
      out[start + at * width + b] = (byte) (v >>> (8 * b));
    }
    System.arraycopy(p, from + at * width, out, start + (at + 1) * width, (n - at) * width);
    return out;
  }

  /** Returns the INTSET without its member at position {@code at}, at the same width. */
  private static byte[] intsetDelete(byte[] p, int at) {
    int width = p[1];
    long[] cursor = {2};
    int n = PayloadBytes.count(p, cursor, width);
    int from = (int) cursor[0];
    int start = 2 + Varint.size(n - 1);
    byte[] out = new byte[start + (n - 1) * width];
    out[0] = INTSET;
    out[1] = (byte) width;
    Varint.write(out, 2, n - 1);
    System.arraycopy(p, from, out, start, at * width);
    System.arraycopy(p, from + (at + 1) * width, out, start + at * width, (n - at - 1) * width);
    return out;
  }

  /**
   * Finds {@code m} in a PACKED payload by a walk: in the high 32 bits ({@link #position}) its
   * position, or -(insertion point) - 1; in the low 32 ({@link #offset}) where that member's (or
   * the insertion point's) length starts, so that an insert or a delete does not walk again.
   */
  private static long packedSearch(byte[] p, byte[] m) {
    long[] cursor = {1};
    int n = PayloadBytes.count(p, cursor, 1);
    int pos = (int) cursor[0];
    for (int i = 0; i < n; i++) {
      long at = memberAt(p, pos);
      int start = (int) at;
      int end = start + (int) (at >>> 32);
      int c = Arrays.compareUnsigned(p, start, end, m, 0, m.length);
      if (c >= 0) {
        return found(c == 0 ? i : -(i + 1), pos);
      }
      pos = end;
    }
    return found(-(n + 1), pos);
  }

  private static long found(int position, int offset) {
    return (long) position << 32 | (offset & 0xFFFFFFFFL);
  }

  /** A {@link #packedSearch} answer's position. */
  private static int position(long found) {
    return (int) (found >> 32);
  }

  /** A {@link #packedSearch} answer's offset. */
  private static int offset(long found) {
    return (int) found;
  }

  /**
   * Returns the PACKED payload with {@code m} inserted where a member's length starts, at {@code
   * split}.
   */
  private static byte[] packedInsert(byte[] p, int split, byte[] m) {
    long[] head = {1};
    int n = PayloadBytes.count(p, head, 1);
    int first = (int) head[0];
    int start = 1 + Varint.size(n + 1);
    byte[] out = new byte[start + p.length - first + PayloadBytes.chunkSize(m)];
    out[0] = PACKED;
    Varint.write(out, 1, n + 1);
    System.arraycopy(p, first, out, start, split - first);
    int pos = PayloadBytes.putChunk(out, start + split - first, m);
    System.arraycopy(p, split, out, pos, p.length - split);
    return out;
  }

  /**
   * Returns the payload without {@code m} (an empty payload when it was the last), or null if it
   * was not a member.
   *
   * @param p a payload
   * @param m a member
   */
  public static byte[] remove(byte[] p, byte[] m) {
    if (encoding(p) == TABLE) {
      Table t = new Table(p);
      int at = t.search(m);
      return at < 0 ? null : t.delete(at);
    }
    if (encoding(p) == INTSET) {
      Long v = asLong(m);
      int at = v == null ? -1 : intsetSearch(p, v);
      return at < 0 ? null : intsetDelete(p, at);
    }
    long found = packedSearch(p, m);
    if (position(found) < 0) {
      return null;
    }
    byte[] rest = packedDelete(p, offset(found));
    if (!packedAllIntegers(rest)) {
      return rest; // what encode(members) gives: still PACKED, in the same order
    }
    return encode(members(rest)); // every member left is an integer: an INTSET, as encode makes
  }

  /** Returns the PACKED payload without the member whose length starts at {@code from}. */
  private static byte[] packedDelete(byte[] p, int from) {
    long[] head = {1};
    int n = PayloadBytes.count(p, head, 1);
    int first = (int) head[0];
    long at = memberAt(p, from);
    int to = (int) at + (int) (at >>> 32);
    int start = 1 + Varint.size(n - 1);
    byte[] out = new byte[start + p.length - first - (to - from)];
    out[0] = PACKED;
    Varint.write(out, 1, n - 1);
    System.arraycopy(p, first, out, start, from - first);
    System.arraycopy(p, to, out, start + from - first, p.length - to);
    return out;
  }

  /** Whether every member of a PACKED payload (none counts as every) reads as an integer. */
  private static boolean packedAllIntegers(byte[] p) {
    long[] cursor = {1};
    int n = PayloadBytes.count(p, cursor, 1);
    int pos = (int) cursor[0];
    for (int i = 0; i < n; i++) {
      long at = memberAt(p, pos);
      int start = (int) at;
      int len = (int) (at >>> 32);
      if (!integerSyntax(p, start, len)
          || asLong(Arrays.copyOfRange(p, start, start + len)) == null) {
        return false;
      }
      pos = start + len;
    }
    return true;
  }

  /** Whether bytes could be an integer's as {@link #asLong} reads one: a cheap first test. */
  private static boolean integerSyntax(byte[] p, int from, int len) {
    if (len == 0 || len > 20) {
      return false;
    }
    int i = p[from] == '-' ? 1 : 0;
    if (i == len) {
      return false;
    }
    for (; i < len; i++) {
      byte b = p[from + i];
      if (b < '0' || b > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns the payload with every one of {@code ms} added, or null if all were members already.
   * Few members added to a TABLE are inserted one by one; otherwise the set is rebuilt once.
   *
   * @param p a payload, or null for an empty set
   * @param ms members, possibly repeated
   * @param added receives at [0] how many were not members before
   */
  public static byte[] addAll(byte[] p, List<byte[]> ms, int[] added) {
    added[0] = 0;
    if (p == null || encoding(p) != TABLE || ms.size() > 8) {
      TreeSet<byte[]> all = new TreeSet<>(Arrays::compareUnsigned);
      if (p != null) {
        all.addAll(members(p));
      }
      int before = all.size();
      all.addAll(ms);
      added[0] = all.size() - before;
      return added[0] == 0
          ? null
          : p != null && encoding(p) == TABLE ? table(new ArrayList<>(all)) : encode(all);
    }
    for (byte[] m : ms) {
      byte[] next = add(p, m);
      if (next != null) {
        p = next;
        added[0]++;
      }
    }
    return added[0] == 0 ? null : p;
  }

  /**
   * Returns the payload without any of {@code ms} (empty when none is left), or null if none was a
   * member.
   *
   * @param p a payload
   * @param ms members, possibly repeated
   * @param removed receives at [0] how many were members
   */
  public static byte[] removeAll(byte[] p, List<byte[]> ms, int[] removed) {
    removed[0] = 0;
    if (encoding(p) != TABLE || ms.size() > 8) {
      TreeSet<byte[]> all = new TreeSet<>(Arrays::compareUnsigned);
      all.addAll(members(p));
      int before = all.size();
      ms.forEach(all::remove);
      removed[0] = before - all.size();
      return removed[0] == 0
          ? null
          : encoding(p) == TABLE ? table(new ArrayList<>(all)) : encode(all);
    }
    for (byte[] m : ms) {
      byte[] next = remove(p, m);
      if (next != null) {
        p = next;
        removed[0]++;
      }
    }
    return removed[0] == 0 ? null : p;
  }

  /**
   * Returns the value of a canonical decimal long (Redis's string2ll: no sign but minus, no leading
   * zeros, no blanks), or null.
   *
   * @param b bytes
   */
  public static Long asLong(byte[] b) {
    if (b.length == 0
        || b.length > 20
        || (b.length > 1 && b[0] == '0')
        || (b[0] == '-' && (b.length == 1 || b[1] == '0'))) {
      return null;
    }
    for (int i = b[0] == '-' ? 1 : 0; i < b.length; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return null;
      }
    }
    try {
      return Long.parseLong(new String(b, StandardCharsets.ISO_8859_1));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static long[] integers(Collection<byte[]> members) {
    long[] out = new long[members.size()];
    int i = 0;
    for (byte[] m : members) {
      Long v = asLong(m);
      if (v == null) {
        return null;
      }
      out[i++] = v;
    }
    Arrays.sort(out);
    return out;
  }

  private static byte[] intset(long[] sorted) {
    int width = 2;
    for (long v : sorted) {
      if (v != (int) v) {
        width = 8;
      } else if (v != (short) v && width < 4) {
        width = 4;
      }
    }
    byte[] out = new byte[2 + Varint.size(sorted.length) + sorted.length * width];
    out[0] = INTSET;
    out[1] = (byte) width;
    int pos = Varint.write(out, 2, sorted.length);
    for (long v : sorted) {
      for (int b = 0; b < width; b++) {
        out[pos++] = (byte) (v >>> (8 * b));
      }
    }
    return out;
  }

  private static long[] intsetValues(byte[] p) {
    int width = p.length > 1 ? p[1] : 0;
    if (width != 2 && width != 4 && width != 8) {
      throw new IllegalArgumentException("bad intset width");
    }
    long[] cursor = {2};
    int n = PayloadBytes.count(p, cursor, width);
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = readInt(p, (int) cursor[0] + i * width, width);
    }
    return out;
  }

  private static long readInt(byte[] p, int pos, int width) {
    if ((width != 2 && width != 4 && width != 8) || pos < 0 || pos > p.length - width) {
      throw new IllegalArgumentException("intset truncated");
    }
    long v = 0;
    for (int b = width - 1; b >= 0; b--) {
      v = v << 8 | (p[pos + b] & 0xFF);
    }
    int shift = 64 - 8 * width;
    return v << shift >> shift;
  }

  /** Binary search in place: the position of v, or a negative number if absent. */
  private static int intsetSearch(byte[] p, long v) {
    int width = p.length > 1 ? p[1] : 0;
    long[] cursor = {2};
    int n = PayloadBytes.count(p, cursor, Math.max(1, width));
    int start = (int) cursor[0];
    int lo = 0;
    int hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long x = readInt(p, start + mid * width, width);
      if (x < v) {
        lo = mid + 1;
      } else if (x > v) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  private static byte[] packed(Collection<byte[]> sorted) {
    int size = 1 + Varint.size(sorted.size());
    for (byte[] m : sorted) {
      size += PayloadBytes.chunkSize(m);
    }
    byte[] out = new byte[size];
    out[0] = PACKED;
    int pos = Varint.write(out, 1, sorted.size());
    for (byte[] m : sorted) {
      pos = PayloadBytes.putChunk(out, pos, m);
    }
    return out;
  }

  private static byte[] table(List<byte[]> sorted) {
    int n = sorted.size();
    int heap = 0;
    for (byte[] m : sorted) {
      heap += PayloadBytes.chunkSize(m);
    }
    int start = 1 + Varint.size(n) + 4 * n;
    byte[] out = new byte[start + heap];
    out[0] = TABLE;
    Varint.write(out, 1, n);
    int pos = start;
    for (int i = 0; i < n; i++) {
      PayloadBytes.putU32(out, start - 4 * n + 4 * i, pos - start);
      pos = PayloadBytes.putChunk(out, pos, sorted.get(i));
    }
    return out;
  }

  /** A TABLE payload read in place. */
  private static final class Table {
    private final byte[] p;
    private final int count;
    private final int offsets;
    private final int heap;

    Table(byte[] p) {
      this.p = p;
      long[] cursor = {1};
      this.count = PayloadBytes.count(p, cursor, 5);
      this.offsets = (int) cursor[0];
      this.heap = offsets + 4 * count;
    }

    /** The heap offset of entry i's length. */
    int offset(int i) {
      int o = PayloadBytes.u32(p, offsets + 4 * i);
      if (o >= p.length - heap) {
        throw new IllegalArgumentException("offset past the heap");
      }
      return o;
    }

    byte[] member(int i) {
      long[] cursor = {heap + offset(i)};
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      return Arrays.copyOfRange(p, (int) cursor[0], (int) cursor[0] + len);
    }

    /** Compares entry i's member with m, unsigned, without copying it. */
    int compare(int i, byte[] m) {
      long at = memberAt(p, heap + offset(i));
      int from = (int) at;
      return Arrays.compareUnsigned(p, from, from + (int) (at >>> 32), m, 0, m.length);
    }

    /** Binary search: the position of m, or -(insertion point) - 1. */
    int search(byte[] m) {
      int lo = 0;
      int hi = count - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = compare(mid, m);
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

    byte[] insert(byte[] m) {
      int at = -search(m) - 1;
      int n = count + 1;
      int heapLength = p.length - heap;
      int newOffsets = 1 + Varint.size(n);
      int newHeap = newOffsets + 4 * n;
      byte[] out = new byte[newHeap + heapLength + PayloadBytes.chunkSize(m)];
      out[0] = TABLE;
      Varint.write(out, 1, n);
      System.arraycopy(p, offsets, out, newOffsets, 4 * at);
      PayloadBytes.putU32(out, newOffsets + 4 * at, heapLength);
      System.arraycopy(p, offsets + 4 * at, out, newOffsets + 4 * at + 4, 4 * (count - at));
      System.arraycopy(p, heap, out, newHeap, heapLength);
      PayloadBytes.putChunk(out, newHeap + heapLength, m);
      return out;
    }

    byte[] delete(int at) {
      int o = offset(at);
      long[] cursor = {heap + o};
      int len = PayloadBytes.chunkLength(p, cursor, p.length);
      int entry = (int) cursor[0] + len - (heap + o);
      int n = count - 1;
      if (n == 0) {
        return table(List.of());
      }
      int newOffsets = 1 + Varint.size(n);
      int newHeap = newOffsets + 4 * n;
      byte[] out = new byte[newHeap + p.length - heap - entry];
      out[0] = TABLE;
      Varint.write(out, 1, n);
      for (int i = 0, j = 0; i < count; i++) {
        if (i != at) {
          int x = offset(i);
          PayloadBytes.putU32(out, newOffsets + 4 * j++, x > o ? x - entry : x);
        }
      }
      System.arraycopy(p, heap, out, newHeap, o);
      System.arraycopy(p, heap + o + entry, out, newHeap + o, p.length - heap - o - entry);
      return out;
    }
  }
}
