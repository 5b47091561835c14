package dev.larder.http.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One page of the key browser's scan, with Redis's SCAN guarantees over a cache that has no order
 * of its own.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A cursor is a position in the order of the keys' 32-bit hashes (of their text's UTF-8 bytes,
 * mixed). A page offers every key of the cache; those whose hash is at least the cursor and whose
 * text matches the pattern are kept, sorted by hash, and the first {@code count} are returned
 * (never splitting a run of equal hashes); the next cursor is one past the last hash returned, and
 * 0 when none is left. So a key present from the first page to the last is returned at least once
 * whatever is added or removed meanwhile, and twice only if it was removed and added again. Each
 * page walks every key: a whole scan costs keys times pages.
 *
 * <p>Not thread-safe; one instance serves one request.
 */
final class KeyScan {

  /** The largest cursor: one past the largest hash. */
  static final long END = 1L << 32;

  private final long start;
  private final int count;
  private final KeyGlob glob;
  private final List<Candidate> kept = new ArrayList<>();

  private record Candidate(long hash, String text) {}

  /** A page: the keys' text, and the cursor to continue from (0 when the scan is done). */
  record Page(List<String> keys, long cursor) {}

  /**
   * @param start the cursor the client gave (0 to begin)
   * @param count how many keys to aim for, at least 1
   * @param glob the pattern keys must match
   */
  KeyScan(long start, int count, KeyGlob glob) {
    this.start = start;
    this.count = Math.max(1, count);
    this.glob = glob;
  }

  /**
   * @param text a key's text; each key is offered once per page
   */
  void offer(String text) {
    long hash = hash(text);
    if (hash >= start && glob.matches(text)) {
      kept.add(new Candidate(hash, text));
    }
  }

  Page finish() {
    kept.sort(Comparator.comparingLong(Candidate::hash).thenComparing(Candidate::text));
    List<String> keys = new ArrayList<>();
    long last = -1;
    for (Candidate c : kept) {
      if (keys.size() >= count && c.hash() != last) {
        return new Page(keys, last + 1);
      }
      keys.add(c.text());
      last = c.hash();
    }
    return new Page(keys, 0);
  }

  /**
   * Returns its cursor hash, 0 to 2^32-1.
   *
   * @param text a key's text
   */
  static long hash(String text) {
    int h = Arrays.hashCode(text.getBytes(StandardCharsets.UTF_8));
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    return Integer.toUnsignedLong(h);
  }
}
