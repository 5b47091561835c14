package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of puts and removals applied to a sorted-set payload and to a model (a map of
 * scores and a TreeMap ordered as Redis orders entries), compared after every step: size, every
 * entry in order, ranks and scores of members present and absent. The sets cross the PACKED/TABLE
 * boundary both by count and by member length.
 */
class ZSetPayloadModelTest {
  private static final long SEED = 20261129L;

  @Test
  void matchesATreeMapModel() {
    Random r = new Random(SEED);
    for (int trial = 0; trial < 24; trial++) {
      runTrial(r, 50 + r.nextInt(400), 20 + r.nextInt(trial < 12 ? 150 : 400));
    }
  }

  private static void runTrial(Random r, int steps, int alphabet) {
    byte[] p = null;
    Map<String, Double> scores = new HashMap<>();
    for (int step = 0; step < steps; step++) {
      String m = member(r, alphabet);
      byte[] mb = m.getBytes(StandardCharsets.ISO_8859_1);
      if (r.nextInt(10) == 0) {
        // a batch: more than 8 rebuild the set once
        java.util.Map<String, Entry> batch = new java.util.LinkedHashMap<>();
        for (int k = 0, n = 1 + r.nextInt(20); k < n; k++) {
          String b = member(r, alphabet);
          batch.put(b, new Entry(b.getBytes(StandardCharsets.ISO_8859_1), score(r)));
        }
        p = ZSetPayload.putAll(p, new ArrayList<>(batch.values()));
        batch.forEach((b, e) -> scores.put(b, e.score()));
      } else if (r.nextInt(4) == 0 && p != null) {
        byte[] next = ZSetPayload.remove(p, mb);
        if (scores.remove(m) == null) {
          assertNull(next, "removing an absent member changes nothing");
        } else {
          p = next;
        }
      } else {
        double s = score(r);
        p = ZSetPayload.put(p, mb, s);
        scores.put(m, s);
      }
      check(p, scores, r, alphabet);
    }
  }

  private static String member(Random r, int alphabet) {
    String base = "m" + r.nextInt(alphabet);
    return r.nextInt(50) == 0 ? base + "-".repeat(70) : base;
  }

  private static double score(Random r) {
    return switch (r.nextInt(6)) {
      case 0 -> r.nextInt(5);
      case 1 -> r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
      case 2 -> -0.0;
      default -> r.nextGaussian() * 1000;
    };
  }

  private static void check(byte[] p, Map<String, Double> scores, Random r, int alphabet) {
    TreeMap<Entry, Boolean> model = new TreeMap<>(ZSetPayload.ORDER);
    scores.forEach(
        (m, s) -> model.put(new Entry(m.getBytes(StandardCharsets.ISO_8859_1), s), true));
    ZSetPayload.View v = ZSetPayload.view(p);
    assertEquals(model.size(), v.size());
    List<Entry> expected = new ArrayList<>(model.keySet());
    List<Entry> actual = ZSetPayload.entries(p);
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i).member(), actual.get(i).member(), "member at rank " + i);
      assertEquals(expected.get(i).score(), actual.get(i).score(), "score at rank " + i);
    }
    for (int k = 0; k < 5; k++) {
      String m = member(r, alphabet);
      int rank = v.rank(m.getBytes(StandardCharsets.ISO_8859_1));
      Double s = scores.get(m);
      if (s == null) {
        assertEquals(-1, rank, m);
      } else {
        assertEquals(
            model.headMap(new Entry(m.getBytes(StandardCharsets.ISO_8859_1), s)).size(), rank, m);
        assertEquals(s, v.score(rank));
      }
    }
  }

  @Test
  void encodingFollowsSize() {
    List<Entry> small = new ArrayList<>();
    for (int i = 0; i < ZSetPayload.PACKED_MAX; i++) {
      small.add(new Entry(("m" + i).getBytes(StandardCharsets.ISO_8859_1), i));
    }
    assertEquals(ZSetPayload.PACKED_COMPACT, ZSetPayload.encode(small)[0], "integer scores");
    assertEquals(ZSetPayload.PACKED, ZSetPayload.encodeWide(small)[0]);
    List<Entry> fractions = new ArrayList<>();
    for (Entry e : small) {
      fractions.add(new Entry(e.member(), e.score() + 0.5));
    }
    assertEquals(ZSetPayload.PACKED, ZSetPayload.encode(fractions)[0], "fractional scores");
    byte[] p = ZSetPayload.put(ZSetPayload.encode(small), new byte[] {'x'}, 1);
    assertEquals(ZSetPayload.TABLE, p[0], "past 128 entries");
    assertEquals(ZSetPayload.TABLE, ZSetPayload.remove(p, new byte[] {'x'})[0], "does not shrink");
    byte[] longMember = new byte[ZSetPayload.PACKED_MEMBER_MAX + 1];
    assertEquals(ZSetPayload.TABLE, ZSetPayload.put(null, longMember, 0)[0]);
  }
}
