package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.internal.TestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The picks of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER with a count: Redis's semantics for positive
 * (distinct) and negative (repeats) counts, positions read one by one for a few picks and the
 * collection read whole for many, every entry equally likely; and the three commands on collections
 * large enough to be chunked.
 */
class RandomPicksTest {
  private static final int SIZE = 10_000;

  /** Picks from positions 0..SIZE-1, counting the reads by position and of the whole. */
  private static final class Counted {
    final AtomicInteger positions = new AtomicInteger();
    final AtomicInteger wholes = new AtomicInteger();

    RandomPicks<Integer> of(int size, long count) {
      return RandomPicks.of(
          size,
          count,
          p -> {
            assertTrue(p >= 0 && p < size, "position " + p);
            positions.incrementAndGet();
            return p;
          },
          () -> {
            wholes.incrementAndGet();
            return IntStream.range(0, size).boxed().toList();
          });
    }
  }

  @Test
  void aFewDistinctPicksReadTheirPositionsOnly() {
    Counted counted = new Counted();
    List<Integer> picks = counted.of(SIZE, 10).all();
    assertEquals(10, picks.size());
    assertEquals(10, new HashSet<>(picks).size(), "distinct");
    assertEquals(10, counted.positions.get());
    assertEquals(0, counted.wholes.get());
  }

  @Test
  void aFewIndependentPicksReadTheirPositionsOnly() {
    Counted counted = new Counted();
    RandomPicks<Integer> picks = counted.of(SIZE, -25);
    assertEquals(25, picks.count());
    assertEquals(25, picks.all().size());
    assertEquals(25, counted.positions.get());
    assertEquals(0, counted.wholes.get());
  }

  @Test
  void manyPicksReadTheWholeOnce() {
    Counted distinct = new Counted();
    List<Integer> picks = distinct.of(SIZE, SIZE / 2).all();
    assertEquals(SIZE / 2, new HashSet<>(picks).size());
    assertEquals(1, distinct.wholes.get());
    assertEquals(0, distinct.positions.get());

    Counted repeated = new Counted();
    RandomPicks<Integer> many = repeated.of(SIZE, -3L * SIZE);
    assertEquals(3L * SIZE, many.count());
    Set<Integer> seen = new HashSet<>(many.all());
    // about 9,500 distinct of 30,000 drawn (1 - e^-3 of them)
    assertTrue(seen.size() > SIZE * 9 / 10 && seen.size() < SIZE, "repeats: " + seen.size());
    assertEquals(1, repeated.wholes.get());
  }

  @Test
  void aCountOfTheSizeOrMoreIsEveryEntryInOrder() {
    for (long count : new long[] {7, 8, 1_000, Long.MAX_VALUE}) {
      assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), new Counted().of(7, count).all(), "" + count);
    }
    assertEquals(0, new Counted().of(0, 5).count());
    assertEquals(0, new Counted().of(0, -5).count());
    assertEquals(0, new Counted().of(9, 0).count());
  }

  /**
   * Every position equally likely, for distinct and independent picks: 200,000 picks over 100
   * positions put 2,000 on each, with a standard deviation of about 44; the bounds are 13 of them
   * away, so the check does not fail by chance.
   */
  @Test
  void everyPositionIsEquallyLikely() {
    for (long count : new long[] {3, -3, -40}) {
      int[] hits = new int[100];
      int total = 0;
      while (total < 200_000) {
        for (int p : new Counted().of(100, count).all()) {
          hits[p]++;
          total++;
        }
      }
      for (int p = 0; p < hits.length; p++) {
        int expected = total / hits.length;
        assertTrue(Math.abs(hits[p] - expected) < 600, count + ": position " + p + " " + hits[p]);
      }
    }
  }

  /** The three commands on collections large enough to be chunked, against what they hold. */
  @Test
  void theCommandsOnChunkedCollections() {
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      Map<String, String> scores = new HashMap<>();
      for (int from = 0; from < 3_000; from += 500) {
        List<String> zadd = new ArrayList<>(List.of("ZADD", "z"));
        List<String> sadd = new ArrayList<>(List.of("SADD", "s"));
        List<String> hset = new ArrayList<>(List.of("HSET", "h"));
        for (int i = from; i < from + 500; i++) {
          scores.put("m" + i, Integer.toString(i % 89));
          zadd.add(Integer.toString(i % 89));
          zadd.add("m" + i);
          sadd.add("m" + i);
          hset.add("m" + i);
          hset.add("v" + i);
        }
        c.cmd(zadd.toArray(String[]::new));
        c.cmd(sadd.toArray(String[]::new));
        c.cmd(hset.toArray(String[]::new));
      }
      assertTrue(server.keyspace.estimatedSize() > 30, "chunked");

      String[] z = c.cmd("ZRANDMEMBER", "z", "5", "WITHSCORES").split("\r\n", -1);
      assertEquals("*10", z[0]);
      Set<String> members = new HashSet<>();
      for (int i = 1; i + 3 < z.length; i += 4) {
        members.add(z[i + 1]);
        assertEquals(scores.get(z[i + 1]), z[i + 3], "the member's own score");
      }
      assertEquals(5, members.size(), "distinct");

      c.cmd("HELLO", "3");
      String pairs = c.cmd("ZRANDMEMBER", "z", "-4", "WITHSCORES");
      assertTrue(pairs.startsWith("*4\r\n*2\r\n$"), pairs);
      c.cmd("HELLO", "2");

      String[] s = c.cmd("SRANDMEMBER", "s", "-30").split("\r\n", -1);
      assertEquals("*30", s[0]);
      for (int i = 2; i < s.length; i += 2) {
        assertTrue(scores.containsKey(s[i]), s[i]);
      }
      String[] h = c.cmd("HRANDFIELD", "h", "6", "WITHVALUES").split("\r\n", -1);
      assertEquals("*12", h[0]);
      Set<String> fields = new HashSet<>();
      for (int i = 1; i + 3 < h.length; i += 4) {
        fields.add(h[i + 1]);
        assertEquals("v" + h[i + 1].substring(1), h[i + 3], "the field's own value");
      }
      assertEquals(6, fields.size(), "distinct");
      assertEquals("*3000", c.cmd("SRANDMEMBER", "s", "5000").substring(0, 5));
      assertEquals("*0\r\n", c.cmd("ZRANDMEMBER", "missing", "-5"));
    }
  }
}
