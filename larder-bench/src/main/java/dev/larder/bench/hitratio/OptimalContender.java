package dev.larder.bench.hitratio;

import java.util.Arrays;

/**
 * The clairvoyant optimum for a cache counted in entries (Belady's MIN with bypass): on a miss with
 * a full cache, the entry used farthest in the future is evicted, unless the requested key's next
 * use is farther still, in which case it is not admitted at all.
 *
 * <p>Implementation notes. Each cached key is represented in a max-heap by the index of its next
 * request (keys never requested again get distinct indexes past the end). When a request at index
 * {@code t} hits, the heap holds {@code t} for it: that element is stale from then on and is
 * discarded lazily when it reaches the top, since every live element is greater than the current
 * index.
 */
final class OptimalContender implements Contender {

  @Override
  public String name() {
    return "Optimal";
  }

  @Override
  public boolean supports(Bound bound) {
    return !bound.bytes();
  }

  @Override
  public Outcome replay(Trace trace, Bound bound, int run) {
    int[] ids = trace.denseIds();
    int n = ids.length;
    long[] next = nextUses(ids);
    int capacity = (int) Math.min(bound.value(), Integer.MAX_VALUE);
    boolean[] cached = new boolean[n == 0 ? 0 : Arrays.stream(ids).max().orElse(0) + 1];
    LongMaxHeap heap = new LongMaxHeap(Math.min(capacity, n) + 16);
    int size = 0;
    long hits = 0;
    for (int t = 0; t < n; t++) {
      int id = ids[t];
      if (cached[id]) {
        hits++;
        heap.push(next[t]);
        continue;
      }
      discardStale(heap, t);
      if (size == capacity) {
        if (next[t] >= heap.peek()) {
          continue;
        }
        cached[keyAt(ids, heap.pop(), n)] = false;
        size--;
        discardStale(heap, t);
      }
      cached[id] = true;
      size++;
      heap.push(next[t]);
    }
    return new Outcome(n, hits, n, hits);
  }

  private static int keyAt(int[] ids, long position, int n) {
    // past-the-end positions encode n + the request index that had no successor
    return ids[(int) (position >= n ? position - n : position)];
  }

  private static void discardStale(LongMaxHeap heap, int now) {
    // a stale element is a next-use index that has already been reached
    while (!heap.isEmpty() && heap.peek() <= now) {
      heap.pop();
    }
  }

  /** Returns for each request, the index of the same key's next request, or n + index. */
  static long[] nextUses(int[] ids) {
    int n = ids.length;
    long[] next = new long[n];
    int distinct = Arrays.stream(ids).max().orElse(-1) + 1;
    int[] seen = new int[distinct];
    Arrays.fill(seen, -1);
    for (int t = n - 1; t >= 0; t--) {
      int later = seen[ids[t]];
      next[t] = later < 0 ? (long) n + t : later;
      seen[ids[t]] = t;
    }
    return next;
  }

  /** A binary max-heap of longs. */
  static final class LongMaxHeap {
    private long[] heap;
    private int size;

    LongMaxHeap(int capacity) {
      heap = new long[Math.max(16, capacity)];
    }

    boolean isEmpty() {
      return size == 0;
    }

    long peek() {
      return heap[0];
    }

    void push(long value) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      int i = size++;
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        if (heap[parent] >= value) {
          break;
        }
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = value;
    }

    long pop() {
      long top = heap[0];
      long last = heap[--size];
      int i = 0;
      while (true) {
        int child = 2 * i + 1;
        if (child >= size) {
          break;
        }
        if (child + 1 < size && heap[child + 1] > heap[child]) {
          child++;
        }
        if (heap[child] <= last) {
          break;
        }
        heap[i] = heap[child];
        i = child;
      }
      if (size > 0) {
        heap[i] = last;
      }
      return top;
    }
  }
}
