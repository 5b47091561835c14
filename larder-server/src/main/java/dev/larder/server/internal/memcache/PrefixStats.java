package dev.larder.server.internal.memcache;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * memcached's detailed statistics ({@code stats detail on|off|dump}): per key prefix, the gets,
 * hits, sets and deletes of the text protocol, counted while detail is on. A key's prefix is what
 * precedes its first {@value #DELIMITER}; a key without one is not counted, as in memcached 1.6.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Off (the default), recording costs one volatile read and allocates nothing. On, each record
 * looks its prefix up in a concurrent map (a copy of the prefix bytes as the lookup key) and adds
 * to that prefix's counters under the prefix's own monitor. The map holds at most {@value
 * #MAX_PREFIXES} prefixes, memcached's own cap: keys of prefixes beyond it are not counted, so its
 * memory is bounded (prefixes are at most a key's 250 bytes: about 25 MiB at worst, none until
 * detail is turned on). {@code stats reset} empties it; turning detail off keeps the counts, as
 * memcached does.
 *
 * <p>Thread-safe.
 */
final class PrefixStats {
  /** The prefix delimiter (memcached's {@code -D} default). */
  static final char DELIMITER = ':';

  /** The most prefixes counted (memcached's {@code MAX_PREFIX_COUNT}). */
  static final int MAX_PREFIXES = 1 << 16;

  private final Map<Prefix, Counts> prefixes = new ConcurrentHashMap<>();
  private volatile boolean enabled;

  /** Returns whether detail is on ({@code stats settings}' {@code detail_enabled}). */
  boolean enabled() {
    return enabled;
  }

  /**
   * Turns counting on or off.
   *
   * @param on whether to count
   */
  void enable(boolean on) {
    enabled = on;
  }

  /**
   * A get of {@code key}, if detail is on.
   *
   * @param key the key
   * @param hit whether it found an item
   */
  void recordGet(byte[] key, boolean hit) {
    if (enabled) {
      Counts c = countsOf(key);
      if (c != null) {
        c.add(1, hit ? 1 : 0, 0, 0);
      }
    }
  }

  /**
   * A store (set, add, replace, append, prepend, cas) of {@code key}, if detail is on, whatever its
   * outcome.
   */
  void recordSet(byte[] key) {
    if (enabled) {
      Counts c = countsOf(key);
      if (c != null) {
        c.add(0, 0, 1, 0);
      }
    }
  }

  /** A delete of {@code key}, if detail is on, whether or not it found an item. */
  void recordDelete(byte[] key) {
    if (enabled) {
      Counts c = countsOf(key);
      if (c != null) {
        c.add(0, 0, 0, 1);
      }
    }
  }

  /** Forgets every prefix ({@code stats reset}). */
  void clear() {
    prefixes.clear();
  }

  /**
   * Writes {@code stats detail dump}'s lines (without their line ends): one {@code PREFIX} line per
   * prefix, in no particular order (memcached's is its hash table's), then {@code END}.
   *
   * @param line takes each line
   */
  void dump(Consumer<String> line) {
    prefixes.forEach(
        (p, c) -> {
          long[] n = c.snapshot();
          line.accept(
              "PREFIX " + p + " get " + n[0] + " hit " + n[1] + " set " + n[2] + " del " + n[3]);
        });
    line.accept("END");
  }

  /** The counters of the key's prefix, or null when it has none or the cap is reached. */
  private Counts countsOf(byte[] key) {
    int end = 0;
    while (end < key.length && key[end] != DELIMITER) {
      end++;
    }
    if (end == key.length) {
      return null;
    }
    Prefix p = new Prefix(Arrays.copyOf(key, end));
    Counts c = prefixes.get(p);
    if (c != null || prefixes.size() >= MAX_PREFIXES) {
      return c;
    }
    return prefixes.computeIfAbsent(p, k -> new Counts());
  }

  /** A prefix's bytes, with value equality. */
  @SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
  private record Prefix(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Prefix other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
  }

  /** One prefix's counts; guarded by itself. */
  private static final class Counts {
    private long gets;
    private long hits;
    private long sets;
    private long deletes;

    synchronized void add(long get, long hit, long set, long delete) {
      gets += get;
      hits += hit;
      sets += set;
      deletes += delete;
    }

    synchronized long[] snapshot() {
      return new long[] {gets, hits, sets, deletes};
    }
  }
}
