package dev.larder.server.internal.resp;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The entries SRANDMEMBER, HRANDFIELD and ZRANDMEMBER with a count answer, with Redis's semantics:
 * a count of 0 or more picks that many distinct entries (every entry when the collection has no
 * more), in random order; a negative count picks its magnitude of entries, each drawn on its own,
 * repeats allowed.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Picks are made by position, each position read alone ({@code at}): a chunked collection finds
 * a position by its chunks' counts and reads only the page and the chunk that hold it, so a few
 * picks from a large collection read a few chunks, and every entry is equally likely whatever the
 * chunks' sizes. When the picks would cover a third of the collection or more, reading it whole
 * ({@code all}) costs less than reading that many positions one by one (Redis switches the same
 * way, at the same ratio, for a positive count), and those picks are drawn from the whole.
 * Independent picks drawn from the whole are drawn while the reply is written ({@link #pick}), so a
 * huge negative count holds the collection and no list of its picks, and the connection's output
 * limit stops it.
 *
 * <p>Built inside a read of the collection (under its key's stripe for a chunked one) and read
 * after it: not thread-safe.
 *
 * @param <E> an entry
 */
final class RandomPicks<E> {
  private final List<E> pool;
  private final long count;
  private final boolean drawn;

  private RandomPicks(List<E> pool, long count, boolean drawn) {
    this.pool = pool;
    this.count = count;
    this.drawn = drawn;
  }

  /**
   * Picks from a collection.
   *
   * @param size the collection's number of entries
   * @param count the command's count: distinct picks if 0 or more, independent ones if negative
   *     (the caller bounds its magnitude)
   * @param at reads the entry at a position, 0 to size - 1
   * @param all reads every entry, in position order
   * @param <E> an entry
   * @return the picks
   */
  static <E> RandomPicks<E> of(int size, long count, IntFunction<E> at, Supplier<List<E>> all) {
    RandomGenerator random = ThreadLocalRandom.current();
    long wanted = count >= 0 ? Math.min(count, size) : -count;
    if (size == 0 || wanted == 0) {
      return new RandomPicks<>(List.of(), 0, false);
    }
    boolean whole = wanted >= size / 3;
    if (count < 0 && whole) {
      return new RandomPicks<>(all.get(), wanted, true);
    }
    IntFunction<E> read = at;
    if (whole) {
      List<E> every = all.get();
      read = every::get;
    }
    int[] positions =
        count >= 0 ? distinct(size, (int) wanted, random) : independent(size, (int) wanted, random);
    List<E> picked = new ArrayList<>(positions.length);
    for (int p : positions) {
      picked.add(read.apply(p));
    }
    return new RandomPicks<>(picked, picked.size(), false);
  }

  /** Returns how many entries the reply holds. */
  long count() {
    return count;
  }

  /**
   * Returns the reply's entry {@code i}, 0 to count - 1, in order (an independent pick from the
   * whole collection is drawn now).
   */
  E pick(long i) {
    if (drawn) {
      return pool.get(ThreadLocalRandom.current().nextInt(pool.size()));
    }
    return pool.get((int) i);
  }

  /** Returns every entry of the reply, in order (for a count that is bounded by the size). */
  List<E> all() {
    List<E> out = new ArrayList<>((int) Math.min(count, Integer.MAX_VALUE));
    for (long i = 0; i < count; i++) {
      out.add(pick(i));
    }
    return out;
  }

  /**
   * Picks k distinct positions of 0..n-1 in random order (Floyd's algorithm, then shuffled); all of
   * them in order when k is n or more (Redis answers such a count with the whole collection in its
   * order).
   *
   * @param n the positions
   * @param k how many, at most n
   * @param r the source of randomness
   */
  static int[] distinct(int n, int k, RandomGenerator r) {
    if (k >= n) {
      int[] all = new int[n];
      for (int i = 0; i < n; i++) {
        all[i] = i;
      }
      return all;
    }
    LinkedHashSet<Integer> chosen = new LinkedHashSet<>();
    for (int j = n - k; j < n; j++) {
      int t = r.nextInt(j + 1);
      chosen.add(chosen.contains(t) ? j : t);
    }
    int[] out = new int[k];
    int i = 0;
    for (int x : chosen) {
      out[i++] = x;
    }
    shuffle(out, r);
    return out;
  }

  private static int[] independent(int n, int k, RandomGenerator r) {
    int[] out = new int[k];
    for (int i = 0; i < k; i++) {
      out[i] = r.nextInt(n);
    }
    return out;
  }

  private static void shuffle(int[] a, RandomGenerator r) {
    for (int j = a.length - 1; j > 0; j--) {
      int s = r.nextInt(j + 1);
      int tmp = a[j];
      a[j] = a[s];
      a[s] = tmp;
    }
  }
}
