package dev.larder.server.internal.keyspace;

import java.util.Arrays;
import java.util.List;

/**
 * An index of a {@link RangeBody}'s segments, for a body with many (an open set of 100,000 members
 * has about 800): their lowest hashes in one primitive array, so that a key's segment is found by a
 * binary search that does not touch a segment object per step; and a Fenwick tree (a binary indexed
 * tree) over their entry counts, so that SPOP, SRANDMEMBER and HRANDFIELD find the segment of a
 * uniform position in O(log n), and a change of one count costs O(log n), where a walk of the
 * counts cost O(n) per draw.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>{@code tree[k]} (1-based) holds the sum of the counts of segments {@code k - lowbit(k)} to
 * {@code k - 1} (0-based). {@link #find} descends by powers of two from the highest, keeping the
 * prefix below the answer under the position: the classic search for the first prefix sum above a
 * value. The tree is valid only for the segments it was built from: whoever adds, removes or
 * reorders segments calls {@link #invalidate}, and the next draw builds it again (O(n)); a split
 * between commands replaces one segment by its pieces in place ({@link #replace}): the primitive
 * arrays shifted and the tree summed again from the counts, with no walk of the segment objects.
 *
 * <p>Not thread-safe: its body's, under the key's stripe.
 */
final class SegmentIndex {
  private int[] tree = new int[1];
  private long[] lows = new long[0];

  /** The segments' counts, 0-based: what the tree is built from again after a split. */
  private int[] counts = new int[0];

  private int size;
  private boolean valid;

  /** Returns whether it describes the segments as they are. */
  boolean valid() {
    return valid;
  }

  /** Marks it stale: the segments were added, removed or rebuilt. */
  void invalidate() {
    valid = false;
  }

  /** Builds it over the segments' lowest hashes and counts. */
  void build(List<RangeBody.Segment> segments) {
    size = segments.size();
    fit(size);
    for (int k = 0; k < size; k++) {
      RangeBody.Segment s = segments.get(k);
      lows[k] = s.low;
      counts[k] = s.count;
    }
    sum();
    valid = true;
  }

  /**
   * Replaces the segment at {@code index} (0-based) by {@code pieces}, in order (a split): the
   * arrays are shifted and the tree summed again from them, without a walk of the segment objects.
   * Does nothing while it is not valid (the next use builds it).
   */
  void replace(int index, List<RangeBody.Segment> pieces) {
    if (!valid) {
      return;
    }
    int more = pieces.size() - 1;
    int old = size;
    fit(old + more);
    System.arraycopy(lows, index + 1, lows, index + 1 + more, old - index - 1);
    System.arraycopy(counts, index + 1, counts, index + 1 + more, old - index - 1);
    for (int i = 0; i < pieces.size(); i++) {
      lows[index + i] = pieces.get(i).low;
      counts[index + i] = pieces.get(i).count;
    }
    size = old + more;
    sum();
  }

  /** Makes room for {@code n} segments, keeping what the arrays hold. */
  private void fit(int n) {
    if (tree.length < n + 1) {
      int length = Math.max(n + 1, tree.length * 2);
      tree = new int[length];
      lows = Arrays.copyOf(lows, length);
      counts = Arrays.copyOf(counts, length);
    }
  }

  /** Builds the tree over {@code counts[0, size)}. */
  private void sum() {
    Arrays.fill(tree, 0, size + 1, 0);
    for (int k = 1; k <= size; k++) {
      tree[k] += counts[k - 1];
      int parent = k + (k & -k);
      if (parent <= size) {
        tree[parent] += tree[k];
      }
    }
  }

  /**
   * Returns the index of the last segment whose lowest hash is at most {@code hash} (0 if none is:
   * the first segment's range starts at 0), or -1 if there are no segments.
   */
  int positionOf(long hash) {
    int lo = 0;
    int hi = size - 1;
    if (hi < 0) {
      return -1;
    }
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (lows[mid] <= hash) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Adds {@code delta} to the count of the segment at {@code index} (0-based). */
  void add(int index, int delta) {
    counts[index] += delta;
    for (int k = index + 1; k <= size; k += k & -k) {
      tree[k] += delta;
    }
  }

  /**
   * Returns the segment holding an entry position and the position within it: the segment's index
   * in the high 32 bits, the position within it in the low 32.
   *
   * @param position 0 to the total count - 1
   * @throws IndexOutOfBoundsException if the position is not below the total
   */
  long find(long position) {
    int at = 0;
    long rest = position;
    for (int step = Integer.highestOneBit(Math.max(1, size)); step > 0; step >>>= 1) {
      int next = at + step;
      if (next <= size && tree[next] <= rest) {
        at = next;
        rest -= tree[next];
      }
    }
    if (at >= size || rest < 0) {
      throw new IndexOutOfBoundsException("no entry at that position");
    }
    return ((long) at << 32) | rest;
  }
}
