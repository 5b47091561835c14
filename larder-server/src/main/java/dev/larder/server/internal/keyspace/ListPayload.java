package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A list's payload, packed (payload encoding 1), or a chunk of a chunked list (encoding 3, the same
 * without backlens; stored front-coded, encoding 6, when that is shorter: {@link #storedChunk});
 * the reference is {@code docs/spec/server-value-layout.md}.
 *
 * <pre>
 *   byte        encoding (1: packed, 3: chunk)
 *   varint      count, at least 1
 *   count x entry:
 *     varint    length
 *     bytes     the element
 *     backlen   (encoding 1 only) length again, as a varint whose bytes are stored in reverse order
 * </pre>
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Every entry ends with its length written backwards (Redis's listpack does the same), so the
 * tail can be walked from the end: RPOP and RPUSH cost a walk of the elements they take or add and
 * one copy of the rest, as LPOP and LPUSH do from the head. Changes in the middle (LSET, LINSERT,
 * LREM, LTRIM) decode the list and encode it again. Every operation returns a new array: the store
 * keeps values as immutable byte arrays, so a change of a list of n bytes copies n bytes at least.
 *
 * <p>Reads of stored bytes trust them as far as their own bounds; {@link #decode} checks a payload
 * completely (every length within the payload, every backlen equal to its length, nothing after the
 * last entry) and throws {@link IllegalArgumentException} for anything else.
 *
 * <p>Stateless and thread-safe; returned arrays and lists are the caller's.
 */
public final class ListPayload {
  /** The packed encoding's code, the payload's first byte. */
  public static final int PACKED = 1;

  /**
   * A chunk's encoding: packed without backlens. A chunk holds a few KiB, so its tail is found by
   * walking it from the head, and each element saves a byte (the list's whole point at 200,000
   * elements is bytes per element).
   */
  public static final int CHUNK = 3;

  /**
   * A chunk's front-coded encoding, how a chunk is stored when it is shorter so: each element as
   * the length of the prefix it shares with the element before it, then the rest. Only the store
   * holds it: a chunk is read into {@link #CHUNK} ({@link #loadedChunk}) and written back through
   * {@link #storedChunk}, so every other operation here sees encodings 1 and 3 alone.
   */
  public static final int CHUNK_FRONT = 6;

  private ListPayload() {}

  /**
   * Returns a chunk payload as the store keeps it: front-coded ({@link #CHUNK_FRONT}) when that is
   * shorter, else the payload itself. Elements that share prefixes (keys, ids, paths, JSON of one
   * shape) take the bytes they add to the element before them; others stay as they are.
   *
   * @param chunk a payload in {@link #CHUNK} (any other is returned as it is)
   * @throws IllegalArgumentException if the chunk is malformed
   */
  public static byte[] storedChunk(byte[] chunk) {
    if (chunk[0] != CHUNK) {
      return chunk;
    }
    // Two passes over the chunk's bytes, no element copied out: the size (given up as soon as it
    // reaches the chunk's), then the front-coded bytes.
    long[] cursor = {1};
    long count = Varint.read(chunk, cursor);
    if (count < 1 || count > chunk.length) {
      throw new IllegalArgumentException("list count out of range: " + count);
    }
    int entries = (int) cursor[0];
    long size = 1L + Varint.size(count);
    int previous = 0;
    int previousLength = 0;
    for (long i = 0; i < count; i++) {
      int length = chunkElementLength(chunk, cursor);
      int at = (int) cursor[0];
      int common = commonPrefix(chunk, previous, previousLength, at, length);
      size += Varint.size(common) + Varint.size(length - common) + length - common;
      if (size >= chunk.length) {
        return chunk;
      }
      previous = at;
      previousLength = length;
      cursor[0] = at + (long) length;
    }
    if (cursor[0] != chunk.length) {
      throw new IllegalArgumentException("bytes after the last list entry");
    }
    byte[] out = new byte[(int) size];
    out[0] = CHUNK_FRONT;
    int pos = Varint.write(out, 1, count);
    cursor[0] = entries;
    previous = 0;
    previousLength = 0;
    for (long i = 0; i < count; i++) {
      int length = chunkElementLength(chunk, cursor);
      int at = (int) cursor[0];
      int common = commonPrefix(chunk, previous, previousLength, at, length);
      pos = Varint.write(out, pos, common);
      pos = Varint.write(out, pos, length - common);
      System.arraycopy(chunk, at + common, out, pos, length - common);
      pos += length - common;
      previous = at;
      previousLength = length;
      cursor[0] = at + (long) length;
    }
    return out;
  }

  /** Reads an encoding-3 element's length varint and checks the element is within the payload. */
  private static int chunkElementLength(byte[] chunk, long[] cursor) {
    long length = Varint.read(chunk, cursor);
    if (length > chunk.length - cursor[0]) {
      throw new IllegalArgumentException("list element length malformed or past the payload");
    }
    return (int) length;
  }

  /** The length of the common prefix of two ranges of {@code p}. */
  private static int commonPrefix(byte[] p, int a, int aLength, int b, int bLength) {
    int m = Arrays.mismatch(p, a, a + aLength, p, b, b + bLength);
    return m < 0 ? aLength : m;
  }

  /**
   * Returns a stored chunk payload in {@link #CHUNK}: a front-coded one expanded, any other as it
   * is.
   *
   * @param stored a chunk payload as the store holds it
   * @throws IllegalArgumentException for a front-coded payload with a count of 0 or larger than its
   *     bytes, a shared prefix longer than the element before it (the first's must be 0), a
   *     non-minimal varint, an element past the payload or bytes after the last element
   */
  public static byte[] loadedChunk(byte[] stored) {
    if (stored.length == 0 || stored[0] != CHUNK_FRONT) {
      return stored;
    }
    // Two passes: the checks and the expanded size, then the expansion, each element's prefix
    // copied from the element before it in the output.
    long[] cursor = {1};
    long count = Varint.read(stored, cursor);
    if (count < 1 || count > stored.length) {
      throw new IllegalArgumentException("list count out of range: " + count);
    }
    int entries = (int) cursor[0];
    long size = 1L + Varint.size(count);
    long previousLength = 0;
    for (long i = 0; i < count; i++) {
      long common = minimalVarint(stored, cursor);
      long rest = minimalVarint(stored, cursor);
      if (common > previousLength || rest > stored.length - cursor[0]) {
        throw new IllegalArgumentException("front-coded element malformed or past the payload");
      }
      long length = common + rest;
      size += Varint.size(length) + length;
      if (size > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException("front-coded chunk too large");
      }
      previousLength = length;
      cursor[0] += rest;
    }
    if (cursor[0] != stored.length) {
      throw new IllegalArgumentException("bytes after the last list entry");
    }
    byte[] out = new byte[(int) size];
    out[0] = CHUNK;
    int pos = Varint.write(out, 1, count);
    cursor[0] = entries;
    int previous = 0;
    for (long i = 0; i < count; i++) {
      int common = (int) Varint.read(stored, cursor);
      int rest = (int) Varint.read(stored, cursor);
      pos = Varint.write(out, pos, common + rest);
      System.arraycopy(out, previous, out, pos, common);
      System.arraycopy(stored, (int) cursor[0], out, pos + common, rest);
      previous = pos;
      pos += common + rest;
      cursor[0] += rest;
    }
    return out;
  }

  /** Reads a varint and refuses one longer than it needs to be. */
  private static long minimalVarint(byte[] p, long[] cursor) {
    long at = cursor[0];
    long v = Varint.read(p, cursor);
    if (cursor[0] - at != Varint.size(v)) {
      throw new IllegalArgumentException("overlong varint");
    }
    return v;
  }

  /**
   * Returns the payload of these elements.
   *
   * @param elements the list, head first, at least one
   * @throws IllegalArgumentException for no elements (an empty list is never stored)
   */
  public static byte[] encode(List<byte[]> elements) {
    return encode(elements, PACKED);
  }

  /**
   * Returns the payload of these elements in an encoding.
   *
   * @param elements the list, head first, at least one
   * @param encoding {@link #PACKED} or {@link #CHUNK}
   * @throws IllegalArgumentException for no elements
   */
  public static byte[] encode(List<byte[]> elements, int encoding) {
    if (elements.isEmpty()) {
      throw new IllegalArgumentException("an empty list has no payload");
    }
    int size = 1 + Varint.size(elements.size());
    for (byte[] e : elements) {
      size += entrySize(e.length, encoding);
    }
    byte[] out = new byte[size];
    out[0] = (byte) encoding;
    int pos = Varint.write(out, 1, elements.size());
    for (byte[] e : elements) {
      pos = writeEntry(out, pos, e, encoding);
    }
    return out;
  }

  /** Returns the payload in another encoding (itself if it is in that one already). */
  public static byte[] reencode(byte[] payload, int encoding) {
    return payload[0] == encoding ? payload : encode(decode(payload), encoding);
  }

  /**
   * Returns its elements, head first, checking the whole payload.
   *
   * @param payload a list payload
   * @throws IllegalArgumentException if it is not a well-formed packed list
   */
  public static List<byte[]> decode(byte[] payload) {
    long[] cursor = {headerCount(payload)};
    long count = Varint.read(payload, cursor);
    if (count < 1 || count > payload.length) {
      throw new IllegalArgumentException("list count out of range: " + count);
    }
    List<byte[]> elements = new ArrayList<>((int) count);
    for (long i = 0; i < count; i++) {
      int lengthAt = (int) cursor[0];
      long length = Varint.read(payload, cursor);
      int start = (int) cursor[0];
      if (length > payload.length - start || start - lengthAt != Varint.size(length)) {
        throw new IllegalArgumentException("list element length malformed or past the payload");
      }
      int end = start + (int) length;
      int size = payload[0] == PACKED ? start - lengthAt : 0;
      if (end + size > payload.length) {
        throw new IllegalArgumentException("list entry's backlen past the payload");
      }
      for (int b = 0; b < size; b++) {
        if (payload[end + b] != payload[start - 1 - b]) {
          throw new IllegalArgumentException("list entry's backlen differs from its length");
        }
      }
      elements.add(Arrays.copyOfRange(payload, start, end));
      cursor[0] = (long) end + size;
    }
    if (cursor[0] != payload.length) {
      throw new IllegalArgumentException("bytes after the last list entry");
    }
    return elements;
  }

  /**
   * Returns the number of elements.
   *
   * @param payload a list payload
   * @throws IllegalArgumentException if its header is malformed
   */
  public static int count(byte[] payload) {
    long[] cursor = {headerCount(payload)};
    return (int) Varint.read(payload, cursor);
  }

  /**
   * Returns the list after pushing each element at the head in turn (LPUSH a b c leaves c b a).
   *
   * @param payload the list's payload, or null for a new list
   * @param elements what to push, at least one
   */
  public static byte[] pushHead(byte[] payload, List<byte[]> elements) {
    List<byte[]> reversed = new ArrayList<>(elements.size());
    for (int i = elements.size() - 1; i >= 0; i--) {
      reversed.add(elements.get(i));
    }
    return splice(payload, reversed, true);
  }

  /**
   * Returns the list after appending the elements at the tail, in order.
   *
   * @param payload the list's payload, or null for a new list
   * @param elements what to push, at least one
   */
  public static byte[] pushTail(byte[] payload, List<byte[]> elements) {
    return splice(payload, elements, false);
  }

  private static byte[] splice(byte[] payload, List<byte[]> elements, boolean head) {
    int oldCount = payload == null ? 0 : count(payload);
    int oldStart = payload == null ? 0 : entriesStart(payload);
    int oldBytes = payload == null ? 0 : payload.length - oldStart;
    int encoding = payload == null ? PACKED : payload[0];
    int added = 0;
    for (byte[] e : elements) {
      added += entrySize(e.length, encoding);
    }
    int newCount = oldCount + elements.size();
    byte[] out = new byte[1 + Varint.size(newCount) + added + oldBytes];
    out[0] = (byte) encoding;
    int pos = Varint.write(out, 1, newCount);
    if (!head && oldBytes > 0) {
      System.arraycopy(payload, oldStart, out, pos, oldBytes);
      pos += oldBytes;
    }
    for (byte[] e : elements) {
      pos = writeEntry(out, pos, e, encoding);
    }
    if (head && oldBytes > 0) {
      System.arraycopy(payload, oldStart, out, pos, oldBytes);
    }
    return out;
  }

  /**
   * What a pop took and what is left.
   *
   * @param elements the elements taken, in the order they were popped
   * @param rest the list's payload after, or null if the list is now empty
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  public record Popped(List<byte[]> elements, byte[] rest) {}

  /**
   * Takes up to {@code n} elements from the head.
   *
   * @param payload a list payload
   * @param n how many, at least 1
   */
  public static Popped popHead(byte[] payload, int n) {
    int count = count(payload);
    int take = Math.min(n, count);
    List<byte[]> taken = new ArrayList<>(take);
    long[] cursor = {entriesStart(payload)};
    for (int i = 0; i < take; i++) {
      taken.add(readEntry(payload, cursor));
    }
    return new Popped(taken, rest(payload, count - take, (int) cursor[0], payload.length));
  }

  /**
   * Takes up to {@code n} elements from the tail, the last first.
   *
   * @param payload a list payload
   * @param n how many, at least 1
   */
  public static Popped popTail(byte[] payload, int n) {
    int count = count(payload);
    int take = Math.min(n, count);
    List<byte[]> taken = new ArrayList<>(take);
    if (payload[0] == CHUNK) {
      int[] starts = entryStarts(payload, count);
      for (int i = count - 1; i >= count - take; i--) {
        int[] bounds = entryAt(payload, new long[] {starts[i]});
        taken.add(Arrays.copyOfRange(payload, bounds[0], bounds[1]));
      }
      int end = take == count ? entriesStart(payload) : starts[count - take];
      return new Popped(taken, rest(payload, count - take, entriesStart(payload), end));
    }
    int end = payload.length;
    for (int i = 0; i < take; i++) {
      int[] bounds = entryBefore(payload, end);
      taken.add(Arrays.copyOfRange(payload, bounds[0], bounds[1]));
      end = bounds[2];
    }
    return new Popped(taken, rest(payload, count - take, entriesStart(payload), end));
  }

  /**
   * Returns the elements from {@code start} to {@code stop} inclusive, both already within {@code
   * 0..count-1} and {@code start <= stop}; walks from the nearer end.
   *
   * @param payload a list payload
   * @param start the first index
   * @param stop the last index
   */
  public static List<byte[]> range(byte[] payload, int start, int stop) {
    int count = count(payload);
    List<byte[]> out = new ArrayList<>(stop - start + 1);
    if (payload[0] == CHUNK || start <= count - 1 - stop) {
      long[] cursor = {entriesStart(payload)};
      for (int i = 0; i <= stop; i++) {
        if (i < start) {
          skipEntry(payload, cursor);
        } else {
          out.add(readEntry(payload, cursor));
        }
      }
      return out;
    }
    int end = payload.length;
    for (int i = count - 1; i >= start; i--) {
      int[] bounds = entryBefore(payload, end);
      if (i <= stop) {
        out.add(Arrays.copyOfRange(payload, bounds[0], bounds[1]));
      }
      end = bounds[2];
    }
    return out.reversed();
  }

  /**
   * Names the elements from {@code start} to {@code stop} inclusive where they lie in the payload,
   * in order, as {@link #range(byte[], int, int)} returns them copied; walks from the nearer end.
   *
   * @param payload a list payload, never changed afterwards (the slices point into it)
   * @param start the first index, within {@code 0..count-1}
   * @param stop the last index, within {@code start..count-1}
   * @param out where the slices go
   */
  static void range(byte[] payload, int start, int stop, ElementSlices out) {
    int count = count(payload);
    if (payload[0] == CHUNK || start <= count - 1 - stop) {
      long[] cursor = {entriesStart(payload)};
      for (int i = 0; i <= stop; i++) {
        int[] bounds = entryAt(payload, cursor);
        if (i >= start) {
          out.add(payload, bounds[0], bounds[1] - bounds[0]);
        }
      }
      return;
    }
    int first = out.size();
    int end = payload.length;
    for (int i = count - 1; i >= start; i--) {
      int[] bounds = entryBefore(payload, end);
      if (i <= stop) {
        out.add(payload, bounds[0], bounds[1] - bounds[0]);
      }
      end = bounds[2];
    }
    out.reverseFrom(first);
  }

  private static byte[] rest(byte[] payload, int remaining, int from, int to) {
    if (remaining == 0) {
      return null;
    }
    byte[] out = new byte[1 + Varint.size(remaining) + (to - from)];
    out[0] = payload[0];
    int pos = Varint.write(out, 1, remaining);
    System.arraycopy(payload, from, out, pos, to - from);
    return out;
  }

  /** The offset of the count varint, after checking the encoding byte. */
  private static int headerCount(byte[] payload) {
    if (payload.length < 2 || (payload[0] != PACKED && payload[0] != CHUNK)) {
      throw new IllegalArgumentException("not a packed list payload");
    }
    return 1;
  }

  private static int entriesStart(byte[] payload) {
    long[] cursor = {headerCount(payload)};
    Varint.read(payload, cursor);
    return (int) cursor[0];
  }

  private static int entrySize(int length, int encoding) {
    return (encoding == PACKED ? 2 : 1) * Varint.size(length) + length;
  }

  /** The offset of each entry's length varint. */
  private static int[] entryStarts(byte[] payload, int count) {
    int[] starts = new int[count];
    long[] cursor = {entriesStart(payload)};
    for (int i = 0; i < count; i++) {
      starts[i] = (int) cursor[0];
      entryAt(payload, cursor);
    }
    return starts;
  }

  private static int writeEntry(byte[] out, int pos, byte[] e, int encoding) {
    int p = Varint.write(out, pos, e.length);
    System.arraycopy(e, 0, out, p, e.length);
    p += e.length;
    if (encoding != PACKED) {
      return p;
    }
    int size = Varint.size(e.length);
    // The same varint, its bytes reversed: the low group lands last, next to the entry's end.
    Varint.write(out, p, e.length);
    for (int i = 0, j = size - 1; i < j; i++, j--) {
      byte t = out[p + i];
      out[p + i] = out[p + j];
      out[p + j] = t;
    }
    return p + size;
  }

  private static byte[] readEntry(byte[] payload, long[] cursor) {
    int[] bounds = entryAt(payload, cursor);
    return Arrays.copyOfRange(payload, bounds[0], bounds[1]);
  }

  private static void skipEntry(byte[] payload, long[] cursor) {
    entryAt(payload, cursor);
  }

  /** The element's start and end at the cursor; moves the cursor past the entry's backlen. */
  private static int[] entryAt(byte[] payload, long[] cursor) {
    long length = Varint.read(payload, cursor);
    int start = (int) cursor[0];
    if (length > payload.length - start) {
      throw new IllegalArgumentException("list element longer than its payload");
    }
    int end = start + (int) length;
    cursor[0] = (long) end + (payload[0] == PACKED ? Varint.size(length) : 0);
    return new int[] {start, end};
  }

  /** The element ending at {@code end}: its start, its end, and where its entry starts. */
  private static int[] entryBefore(byte[] payload, int end) {
    long length = 0;
    int pos = end;
    for (int shift = 0; ; shift += 7) {
      if (pos <= 0 || shift >= 63) {
        throw new IllegalArgumentException("malformed list backlen");
      }
      int b = payload[--pos] & 0xFF;
      length |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        break;
      }
    }
    int elementEnd = pos;
    if (length > elementEnd) {
      throw new IllegalArgumentException("list element longer than its payload");
    }
    int elementStart = elementEnd - (int) length;
    return new int[] {elementStart, elementEnd, elementStart - Varint.size(length)};
  }
}
