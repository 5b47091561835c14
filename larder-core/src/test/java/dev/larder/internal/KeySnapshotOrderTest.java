package dev.larder.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.Cache;
import dev.larder.codec.Codecs;
import dev.larder.internal.store.Segment;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A segment's key snapshot (what iteration walks) holds every key once, in an order spread over the
 * hash range: a copy of a cache in its iteration order into a fresh cache of the same shape (a
 * cluster's state transfer) then inserts keys all over the new index instead of piling them into
 * one probe run (see {@code Segment.scatterStep}).
 */
class KeySnapshotOrderTest {

  private static final int KEYS = 40_000;
  private static final int OCTANTS = 8;

  @Test
  void snapshotHoldsEveryKeyOnceSpreadOverTheHashRange() {
    try (Cache<byte[], byte[]> cache =
        Cache.builder(Codecs.bytes(), Codecs.bytes()).unbounded().build()) {
      for (int i = 0; i < KEYS; i++) {
        cache.put(key(i), new byte[] {(byte) i});
      }
      LarderCache<byte[], byte[]> larder = (LarderCache<byte[], byte[]>) cache;
      Set<String> seen = new HashSet<>();
      int checked = 0;
      for (int s = 0; s < larder.segmentCount(); s++) {
        List<byte[]> keys = larder.keySnapshot(s);
        for (byte[] k : keys) {
          assertTrue(seen.add(new String(k, StandardCharsets.UTF_8)), "a key twice in a snapshot");
        }
        if (keys.size() < 1_000) {
          continue;
        }
        // the first quarter of the walk: each eighth of the hash range holds about an eighth of
        // it (in slot order, the whole quarter would lie in the lowest two eighths)
        int quarter = keys.size() / 4;
        int[] perOctant = new int[OCTANTS];
        for (byte[] k : keys.subList(0, quarter)) {
          perOctant[(int) (Segment.hash(k, k.length) >>> 61)]++;
        }
        for (int o = 0; o < OCTANTS; o++) {
          assertTrue(
              perOctant[o] > quarter / 16 && perOctant[o] < 3 * quarter / 16,
              "segment "
                  + s
                  + ": octant "
                  + o
                  + " holds "
                  + perOctant[o]
                  + " of the first "
                  + quarter
                  + " keys");
        }
        checked++;
      }
      assertEquals(KEYS, seen.size());
      assertTrue(checked > 0, "no segment was large enough to check");
    }
  }

  private static byte[] key(int i) {
    return ("k" + i).getBytes(StandardCharsets.UTF_8);
  }
}
