package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.Storage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A caller that read the segments before a split may sweep the retired first segment: the sweep
 * reaches the stripes, as a clear does, rather than doing nothing.
 */
class RetiredSegmentSweepTest {

  private static final long TTL = 1_000;

  private static Segment segment() {
    return new Segment(
        new StoreSettings(Storage.HEAP, 16 * 1024, Long.MAX_VALUE, Long.MAX_VALUE, TTL, -1, false));
  }

  @Test
  void sweepingTheRetiredFirstSegmentSweepsItsStripes() {
    Segment first = segment();
    for (int i = 0; i < 100; i++) {
      byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
      byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
      first.put(
          key,
          key.length,
          value,
          value.length,
          Segment.hash(key, key.length),
          PutMode.ALWAYS,
          null,
          false,
          0);
    }
    Segment[] stripes = {segment(), segment(), segment(), segment()};
    first.splitInto(() -> stripes, published -> {});
    long held = 0;
    for (Segment s : stripes) {
      held += s.size();
    }
    assertEquals(100, held, "the stripes took every entry");

    WriteResult swept = first.sweepExpired(TTL * 2, Integer.MAX_VALUE);
    assertEquals(100, swept.expirations(), "every expired entry, reached through the stripes");
    for (Segment s : stripes) {
      assertEquals(0, s.size());
    }
    first.close();
  }
}
