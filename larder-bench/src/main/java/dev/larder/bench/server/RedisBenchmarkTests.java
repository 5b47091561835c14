package dev.larder.bench.server;

import java.util.List;

/**
 * redis-benchmark 7.0's default tests (what it runs without {@code -t}), in its order, and what the
 * server bench needs to know of each: whether it works on one growing collection key, and which
 * keys to remove before it so that every server starts it from the same state.
 *
 * <p>The list tests share one key ({@code mylist}): LPUSH and RPUSH grow it by their request count,
 * LPOP and RPOP take as much back; each LRANGE test first runs redis-benchmark's own "LPUSH (needed
 * to benchmark LRANGE)" of the same count, so the list is removed before each LRANGE test and every
 * one reads a list of that many elements. SADD, HSET and ZADD add members {@code element:N} with N
 * random below 100,000 to one key each; SPOP and ZPOPMIN take them back.
 */
final class RedisBenchmarkTests {
  /** Every default test, in redis-benchmark's order. */
  static final List<String> ALL =
      List.of(
          "ping_inline",
          "ping_mbulk",
          "set",
          "get",
          "incr",
          "lpush",
          "rpush",
          "lpop",
          "rpop",
          "sadd",
          "hset",
          "spop",
          "zadd",
          "zpopmin",
          "lrange_100",
          "lrange_300",
          "lrange_500",
          "lrange_600",
          "mset");

  private static final List<String> STRINGS =
      List.of("ping_inline", "ping_mbulk", "set", "get", "incr", "mset");

  private RedisBenchmarkTests() {}

  /**
   * Whether the test works on one collection key that its requests grow or read: while a
   * collection's every change rewrites it whole, such a test's time grows with the square of its
   * request count, so it gets its own count.
   *
   * @param test a name of {@link #ALL}
   */
  static boolean onCollection(String test) {
    return !STRINGS.contains(test);
  }

  /**
   * Whether the test pushes to or pops from the list key without removing it first (LPUSH, RPUSH,
   * LPOP, RPOP): the tests a list filled beforehand is for. The LRANGE tests remove the list.
   *
   * @param test a name of {@link #ALL}
   */
  static boolean growsTheList(String test) {
    return List.of("lpush", "rpush", "lpop", "rpop").contains(test);
  }

  /**
   * Returns the keys to remove before the test runs: the list, before each LRANGE test (see the
   * class comment); none otherwise.
   *
   * @param test a name of {@link #ALL}
   */
  static List<String> keysToRemoveBefore(String test) {
    return test.startsWith("lrange_") ? List.of("mylist") : List.of();
  }

  /**
   * Whether the test's run is the test alone: an LRANGE run is redis-benchmark's LPUSH then the
   * LRANGE, so the server's CPU per operation of that run is not the LRANGE's.
   *
   * @param test a name of {@link #ALL}
   */
  static boolean runsAlone(String test) {
    return !test.startsWith("lrange_");
  }
}
