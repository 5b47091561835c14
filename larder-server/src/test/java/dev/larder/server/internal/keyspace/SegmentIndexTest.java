package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The segment index kept through splits ({@link SegmentIndex#replace}) and count changes answers
 * what one built afresh over the same segments answers: every key-hash lookup and every position.
 */
class SegmentIndexTest {
  private static RangeBody.Segment segment(long low, int count) {
    return new RangeBody.Segment(-1, low, count, 0, null);
  }

  /** Checks every lookup of {@code kept} against an index built from {@code segments}. */
  private static void assertSame(List<RangeBody.Segment> segments, SegmentIndex kept) {
    SegmentIndex fresh = new SegmentIndex();
    fresh.build(segments);
    long total = 0;
    for (int i = 0; i < segments.size(); i++) {
      RangeBody.Segment s = segments.get(i);
      assertEquals(i, kept.positionOf(s.low));
      assertEquals(fresh.positionOf(s.low + 1), kept.positionOf(s.low + 1));
      total += s.count;
    }
    for (long p = 0; p < total; p++) {
      assertEquals(fresh.find(p), kept.find(p), "position " + p);
    }
    long end = total;
    assertThrows(IndexOutOfBoundsException.class, () -> kept.find(end));
  }

  @Test
  void splitsAndCountChangesKeepTheIndexAsABuildWould() {
    Random random = new Random(7);
    List<RangeBody.Segment> segments = new ArrayList<>();
    segments.add(segment(0, 5));
    SegmentIndex kept = new SegmentIndex();
    kept.build(segments);
    for (int round = 0; round < 400; round++) {
      int at = random.nextInt(segments.size());
      RangeBody.Segment s = segments.get(at);
      long above = at + 1 < segments.size() ? segments.get(at + 1).low : 1L << 32;
      if (random.nextInt(3) == 0 || above - s.low < 4) {
        int delta = random.nextInt(7) - 3;
        if (s.count + delta >= 0) {
          s.count += delta;
          kept.add(at, delta);
        }
      } else {
        // A split into 2 or 3 pieces at hashes inside the segment's range, the first keeping its
        // lowest hash.
        int n = 2 + random.nextInt(2);
        List<RangeBody.Segment> pieces = new ArrayList<>();
        long step = (above - s.low) / n;
        for (int k = 0; k < n; k++) {
          pieces.add(segment(s.low + k * step, random.nextInt(9)));
        }
        segments.remove(at);
        segments.addAll(at, pieces);
        kept.replace(at, pieces);
      }
      assertSame(segments, kept);
    }
  }

  @Test
  void anInvalidIndexStaysInvalidThroughASplit() {
    List<RangeBody.Segment> segments = new ArrayList<>(List.of(segment(0, 3), segment(100, 2)));
    SegmentIndex index = new SegmentIndex();
    index.build(segments);
    index.invalidate();
    index.replace(0, List.of(segment(0, 1), segment(50, 2)));
    assertFalse(index.valid());
  }
}
