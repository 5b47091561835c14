package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.server.internal.keyspace.ZSetPayload.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A chunk buffer spliced in place against a list of entries: after every random splice (inserts,
 * removals and replacements at the ends and in the middle, members of one- and two-byte lengths,
 * counts crossing the varint's 128) its entries, member hashes, member comparisons and written
 * payload are those of the list encoded afresh.
 */
class ZSetChunkBufferTest {
  private static Entry randomEntry(Random r) {
    byte[] member = new byte[r.nextInt(8) == 0 ? 130 + r.nextInt(40) : 1 + r.nextInt(20)];
    r.nextBytes(member);
    return new Entry(member, r.nextInt(1000) - 500 + r.nextDouble());
  }

  private static byte[] written(ZSetChunkBuffer b) {
    PayloadEncoder e = b.encoder();
    byte[] out = new byte[e.length() + 3];
    e.encodeAt(out, 3);
    return java.util.Arrays.copyOfRange(out, 3, out.length);
  }

  private static void check(List<Entry> model, ZSetChunkBuffer b) {
    assertEquals(model.size(), b.count());
    List<Entry> got = b.entries();
    for (int i = 0; i < model.size(); i++) {
      Entry want = model.get(i);
      assertArrayEquals(want.member(), got.get(i).member());
      assertEquals(want.score(), got.get(i).score());
      assertEquals(want.score(), b.scoreAt(i));
      assertEquals(0, b.compareMember(i, want.member()));
      assertEquals((int) ScanCursor.hash(want.member()), b.hashAt(i)); // kept, or computed
    }
    assertArrayEquals(ZSetChunks.encodeChunk(model), written(b));
  }

  private static void run(long seed, boolean hashed, boolean slack) {
    Random r = new Random(seed);
    List<Entry> model = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      model.add(randomEntry(r));
    }
    ZSetChunkBuffer b =
        ZSetChunkBuffer.of(ZSetChunks.encodeChunk(model), model.size(), hashed, slack);
    check(model, b);
    for (int step = 0; step < 1500; step++) {
      int n = model.size();
      int kind = r.nextInt(10);
      int at =
          switch (r.nextInt(3)) {
            case 0 -> 0;
            case 1 -> n;
            default -> r.nextInt(n + 1);
          };
      if ((kind < 5 && n < 300) || n < 2) {
        Entry e = randomEntry(r);
        b.splice(at, 0, e);
        model.add(at, e);
      } else if (kind < 8) {
        at = Math.min(at, n - 1);
        b.splice(at, 1, null);
        model.remove(at);
      } else {
        at = Math.min(at, n - 1);
        Entry old = model.get(at);
        Entry e =
            r.nextBoolean()
                ? new Entry(old.member(), r.nextDouble()) // same size: in place
                : randomEntry(r);
        b.splice(at, 1, e);
        model.set(at, e);
      }
      check(model, b);
    }
  }

  @Test
  void splicesMatchTheListEncodedAfresh() {
    for (long seed = 1; seed <= 4; seed++) {
      run(seed, seed % 2 == 0, true);
      run(seed, seed % 2 == 1, false);
    }
  }

  @Test
  void popsFromTheLowEndMoveNoBytes() {
    List<Entry> model = new ArrayList<>();
    Random r = new Random(7);
    for (int i = 0; i < 50; i++) {
      model.add(randomEntry(r));
    }
    ZSetChunkBuffer b =
        ZSetChunkBuffer.of(ZSetChunks.encodeChunk(model), model.size(), false, true);
    long held = b.heldBytes();
    while (model.size() > 1) {
      b.splice(0, 1, null);
      model.removeFirst();
      assertEquals(held, b.heldBytes()); // no new array: the low end advanced
      check(model, b);
    }
  }
}
