package dev.larder.server.internal.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.TestServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Random ZADD, ZINCRBY, ZREM and ZPOPMIN sequences against a TreeSet model ordered as Redis orders
 * entries; after each step a random ZRANGE by rank, by score (exclusive and infinite bounds, REV,
 * LIMIT) or by member, ZRANK and ZCOUNT are compared with the model's answer. Sets grow past the
 * packed encoding's 128 entries.
 */
class ZSetRangeModelTest {
  private static final long SEED = 7_2026L;

  private record E(String member, double score) {}

  private static final java.util.Comparator<E> ORDER =
      (a, b) -> {
        int c = Double.compare(a.score() + 0.0, b.score() + 0.0);
        return c != 0 ? c : a.member().compareTo(b.member());
      };

  @Test
  void commandsMatchATreeSetModel() {
    Random r = new Random(SEED);
    try (TestServer server = new TestServer()) {
      TestServer.Connection c = server.resp();
      for (int trial = 0; trial < 4; trial++) {
        c.cmd("DEL", "z");
        Map<String, Double> scores = new HashMap<>();
        int alphabet = 20 + r.nextInt(300);
        boolean lex = trial % 3 == 0;
        for (int step = 0; step < 400; step++) {
          String m = "m" + (char) ('a' + r.nextInt(26)) + r.nextInt(alphabet);
          double s = lex ? 0 : r.nextInt(40) - 20 + (r.nextBoolean() ? 0.5 : 0);
          switch (r.nextInt(10)) {
            case 0 -> {
              c.cmd("ZREM", "z", m);
              scores.remove(m);
            }
            case 1 -> {
              if (!lex) {
                c.cmd("ZINCRBY", "z", "2", m);
                scores.merge(m, 2.0, Double::sum);
              }
            }
            case 2 -> {
              NavigableSet<E> model = model(scores);
              c.cmd("ZPOPMIN", "z");
              if (!model.isEmpty()) {
                scores.remove(model.first().member());
              }
            }
            default -> {
              c.cmd("ZADD", "z", Score.format(s), m);
              scores.put(m, s);
            }
          }
          check(c, r, model(scores), lex);
        }
      }
    }
  }

  private static NavigableSet<E> model(Map<String, Double> scores) {
    TreeSet<E> t = new TreeSet<>(ORDER);
    scores.forEach((m, s) -> t.add(new E(m, s)));
    return t;
  }

  private static void check(TestServer.Connection c, Random r, NavigableSet<E> model, boolean lex) {
    List<E> all = new ArrayList<>(model);
    assertEquals(":" + all.size() + "\r\n", c.cmd("ZCARD", "z"));
    if (lex) {
      String a = "m" + (char) ('a' + r.nextInt(26));
      String b = "m" + (char) ('a' + r.nextInt(26));
      boolean ax = r.nextBoolean();
      boolean bx = r.nextBoolean();
      List<String> expected = new ArrayList<>();
      for (E e : all) {
        int ca = e.member().compareTo(a);
        int cb = e.member().compareTo(b);
        if ((ax ? ca > 0 : ca >= 0) && (bx ? cb < 0 : cb <= 0)) {
          expected.add(e.member());
        }
      }
      String min = (ax ? "(" : "[") + a;
      String max = (bx ? "(" : "[") + b;
      assertEquals(
          RespZSetCommandsTest.arr(expected.toArray(String[]::new)),
          c.cmd("ZRANGEBYLEX", "z", min, max));
      assertEquals(":" + expected.size() + "\r\n", c.cmd("ZLEXCOUNT", "z", min, max));
      return;
    }
    int start = r.nextInt(all.size() + 4) - 2;
    int stop = r.nextInt(all.size() + 4) - 2;
    List<String> byRank = new ArrayList<>();
    int from = start < 0 ? Math.max(0, start + all.size()) : start;
    int to = Math.min(all.size() - 1, stop < 0 ? stop + all.size() : stop);
    for (int i = from; i <= to; i++) {
      byRank.add(all.get(i).member());
    }
    assertEquals(
        RespZSetCommandsTest.arr(byRank.toArray(String[]::new)),
        c.cmd("ZRANGE", "z", Integer.toString(start), Integer.toString(stop)));
    double lo = r.nextInt(50) - 25;
    double hi = r.nextInt(50) - 25;
    boolean lox = r.nextBoolean();
    boolean hix = r.nextBoolean();
    String min = r.nextInt(8) == 0 ? "-inf" : (lox ? "(" : "") + Score.format(lo);
    String max = r.nextInt(8) == 0 ? "+inf" : (hix ? "(" : "") + Score.format(hi);
    List<String> inScore = new ArrayList<>();
    for (E e : all) {
      boolean above = min.equals("-inf") || (lox ? e.score() > lo : e.score() >= lo);
      boolean below = max.equals("+inf") || (hix ? e.score() < hi : e.score() <= hi);
      if (above && below) {
        inScore.add(e.member());
      }
    }
    assertEquals(":" + inScore.size() + "\r\n", c.cmd("ZCOUNT", "z", min, max));
    int offset = r.nextInt(5);
    int count = r.nextInt(6) - 1;
    List<String> reversed = new ArrayList<>(inScore).reversed();
    List<String> limited = new ArrayList<>();
    for (int i = offset; i < reversed.size() && (count < 0 || limited.size() < count); i++) {
      limited.add(reversed.get(i));
    }
    assertEquals(
        RespZSetCommandsTest.arr(limited.toArray(String[]::new)),
        c.cmd(
            "ZRANGE",
            "z",
            max,
            min,
            "BYSCORE",
            "REV",
            "LIMIT",
            Integer.toString(offset),
            Integer.toString(count)));
    if (!all.isEmpty()) {
      E e = all.get(r.nextInt(all.size()));
      assertEquals(":" + all.indexOf(e) + "\r\n", c.cmd("ZRANK", "z", e.member()));
    }
  }
}
