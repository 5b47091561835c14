package dev.larder.server.internal.keyspace;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One sorted-set chunk's entries held in memory as their stored bytes ({@link ZSetSide}'s payload
 * form), searched in place and edited in place.
 *
 * <h2>Implementation notes</h2>
 *
 * <pre>
 *   raw:    [ room | entry 0 | entry 1 | ... | entry n-1 | room ]
 *                  ^from                                  ^to
 *   starts: [ room | start 0 | start 1 | ... | start n-1 | room ]      (offsets into raw)
 *                  ^first
 *   hashes: [ room | hash 0  | hash 1  | ... | hash n-1  | room ]      (open by-member chunks)
 * </pre>
 *
 * <p>{@code raw[from, to)} is the chunk's stored payload ({@link ZSetChunks}: a PACKED byte, the
 * entry count as a varint, then each entry's score and length-prefixed member) without its two
 * header fields, which {@link #encoder} writes from the count: so a change of the count's varint
 * size moves no byte. {@code hashes[first + i]} is entry i's member's {@link ScanCursor#hash} (a
 * 32-bit value, compared unsigned), computed once when the chunk is read or an entry inserted: an
 * open set's by-member search compares ints, not members hashed again at every comparison (a chunk
 * read for one command on the store path keeps none and hashes the few entries it compares).
 *
 * <p>A splice ({@link #splice}) moves, inside the arrays, the smaller side of the cut toward the
 * room at its end (a pop from the low end moves no byte: {@code from} and {@code first} advance).
 * Only when neither end has room is a new array made, with room of about a quarter at each end
 * split evenly ({@code slack}: an open set's chunks; a chunk read by one command on the store path
 * gets none). The arrays are never shared with the store: {@code raw} comes from {@link
 * ChunkLoader#load} (a copy out of the store) or from encoding, and {@link #encoder} copies it into
 * the store's value; so an edit in place never touches the store's image.
 *
 * <p>Not thread-safe: its sorted set's, under the key's stripe.
 */
final class ZSetChunkBuffer {
  private byte[] raw;
  private int from;
  private int to;
  private int[] starts;
  private int[] hashes;
  private int first;
  private int count;
  private final boolean slack;

  private ZSetChunkBuffer(byte[] raw, int[] starts, int count, boolean hashed, boolean slack) {
    this.raw = raw;
    this.starts = starts;
    this.count = count;
    this.from = starts[0];
    this.to = raw.length;
    this.slack = slack;
    if (hashed) {
      hashes = new int[starts.length];
      for (int i = 0; i < count; i++) {
        hashes[i] = hashAt(raw, starts[i]);
      }
    }
  }

  /**
   * Takes a chunk's stored payload (not to be used elsewhere after).
   *
   * @param payload the payload, owned from now on
   * @param expected the entry count its ref gives
   * @param hashed whether to keep its members' hashes (an open set's by-member chunk: one read for
   *     one command's search hashes only the few entries it compares)
   * @param slack whether arrays made by a splice keep room for later ones (an open set's chunk)
   * @throws IllegalArgumentException if the payload is malformed or its count is not {@code
   *     expected}
   */
  static ZSetChunkBuffer of(byte[] payload, int expected, boolean hashed, boolean slack) {
    return new ZSetChunkBuffer(
        payload, ZSetChunks.entryStarts(payload, expected), expected, hashed, slack);
  }

  /** Returns its entry count. */
  int count() {
    return count;
  }

  /** Returns the bytes its arrays hold, room included. */
  long heldBytes() {
    return raw.length + 4L * starts.length + (hashes == null ? 0 : 4L * hashes.length);
  }

  /** Returns entry i (a copy). */
  Entry entryAt(int i) {
    return ZSetChunks.entryAt(raw, starts[first + i]);
  }

  /** Returns entry i's score. */
  double scoreAt(int i) {
    return PayloadBytes.dbl(raw, starts[first + i]);
  }

  /**
   * Returns entry i's member hash ({@link ScanCursor#hash}), as an int to compare unsigned: kept,
   * or computed from the bytes if the buffer keeps no hashes.
   */
  int hashAt(int i) {
    return hashes != null ? hashes[first + i] : hashAt(raw, starts[first + i]);
  }

  /** Compares entry i's member with {@code member}, bytes unsigned. */
  int compareMember(int i, byte[] member) {
    int start = starts[first + i];
    int length = raw[start + 8];
    int at;
    if (length >= 0) {
      at = start + 9; // a member under 128 bytes: a one-byte length
    } else {
      long[] cursor = {start + 8L};
      length = PayloadBytes.chunkLength(raw, cursor, to);
      at = (int) cursor[0];
    }
    return Arrays.compareUnsigned(raw, at, at + length, member, 0, member.length);
  }

  /** Returns its entries, decoded, in a fresh mutable list. */
  List<Entry> entries() {
    List<Entry> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(entryAt(i));
    }
    return out;
  }

  /** Returns its stored payload's encoder (valid until the next splice). */
  PayloadEncoder encoder() {
    int header = 1 + Varint.size(count);
    return new PayloadEncoder() {
      @Override
      public int length() {
        return header + to - from;
      }

      @Override
      public void encodeAt(byte[] out, int pos) {
        out[pos] = ZSetPayload.PACKED;
        int at = Varint.write(out, pos + 1, count);
        System.arraycopy(raw, from, out, at, to - from);
      }
    };
  }

  /** The member hash of the entry at a start, as an int (bits of {@link ScanCursor#hash}). */
  private static int hashAt(byte[] raw, int start) {
    long[] cursor = {start + 8L};
    int length = PayloadBytes.chunkLength(raw, cursor, raw.length);
    int at = (int) cursor[0];
    return (int) ScanCursor.hash(raw, at, at + length);
  }

  /**
   * Replaces entries {@code at} to {@code at + removed} (exclusive) with {@code inserted} (none if
   * null), in place where an end has room.
   */
  void splice(int at, int removed, Entry inserted) {
    int cutFrom = at < count ? starts[first + at] : to;
    int cutTo = at + removed < count ? starts[first + at + removed] : to;
    int insertSize = inserted == null ? 0 : ZSetChunks.entrySize(inserted);
    int delta = insertSize - (cutTo - cutFrom);
    int leftBytes = cutFrom - from;
    int rightBytes = to - cutTo;
    boolean leftFits = from - delta >= 0;
    boolean rightFits = to + delta <= raw.length;
    int leftShift = 0;
    int rightShift = 0;
    int put;
    if (delta == 0) {
      put = cutFrom;
    } else if (leftFits && (leftBytes <= rightBytes || !rightFits)) {
      System.arraycopy(raw, from, raw, from - delta, leftBytes);
      from -= delta;
      leftShift = -delta;
      put = cutFrom - delta;
    } else if (rightFits) {
      System.arraycopy(raw, cutTo, raw, cutTo + delta, rightBytes);
      to += delta;
      rightShift = delta;
      put = cutFrom;
    } else {
      int length = leftBytes + insertSize + rightBytes;
      byte[] out = new byte[length + (slack ? length / 4 + 64 : 0)];
      int newFrom = (out.length - length) / 2;
      System.arraycopy(raw, from, out, newFrom, leftBytes);
      System.arraycopy(raw, cutTo, out, newFrom + leftBytes + insertSize, rightBytes);
      leftShift = newFrom - from;
      rightShift = leftShift + delta;
      put = newFrom + leftBytes;
      raw = out;
      from = newFrom;
      to = newFrom + length;
    }
    int hash = 0;
    if (inserted != null) {
      int p = PayloadBytes.putDbl(raw, put, inserted.score());
      PayloadBytes.putChunk(raw, p, inserted.member());
      hash = hashes == null ? 0 : (int) ScanCursor.hash(inserted.member());
    }
    spliceIndex(at, removed, inserted == null ? 0 : 1, leftShift, rightShift, put, hash);
  }

  /**
   * The index side of {@link #splice}: the starts (and hashes) of the entries left and right of the
   * cut moved as {@link #splice} moved their bytes' side, the inserted entry's set.
   */
  private void spliceIndex(
      int at, int removed, int inserted, int leftShift, int rightShift, int put, int hash) {
    int d = inserted - removed;
    int rightCount = count - at - removed;
    int newCount = count + d;
    boolean leftFits = first - d >= 0;
    boolean rightFits = first + count + d <= starts.length;
    if (d == 0) {
      // nothing moves
    } else if (leftFits && (at <= rightCount || !rightFits)) {
      moveIndex(first, first - d, at);
      first -= d;
    } else if (rightFits) {
      moveIndex(first + at + removed, first + at + removed + d, rightCount);
    } else {
      int capacity = newCount + (slack ? Math.max(8, newCount / 4) : 0);
      int newFirst = (capacity - newCount) / 2;
      starts = regrown(starts, capacity, at, removed, rightCount, newFirst, inserted);
      if (hashes != null) {
        hashes = regrown(hashes, capacity, at, removed, rightCount, newFirst, inserted);
      }
      first = newFirst;
    }
    count = newCount;
    if (leftShift != 0) {
      for (int i = first; i < first + at; i++) {
        starts[i] += leftShift;
      }
    }
    if (rightShift != 0) {
      for (int i = first + at + inserted; i < first + newCount; i++) {
        starts[i] += rightShift;
      }
    }
    if (inserted != 0) {
      starts[first + at] = put;
      if (hashes != null) {
        hashes[first + at] = hash;
      }
    }
  }

  private void moveIndex(int src, int dst, int length) {
    System.arraycopy(starts, src, starts, dst, length);
    if (hashes != null) {
      System.arraycopy(hashes, src, hashes, dst, length);
    }
  }

  private int[] regrown(
      int[] old, int capacity, int at, int removed, int rightCount, int newFirst, int inserted) {
    int[] out = new int[capacity];
    System.arraycopy(old, first, out, newFirst, at);
    System.arraycopy(old, first + at + removed, out, newFirst + at + inserted, rightCount);
    return out;
  }
}
