package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of single and batched additions and removals applied to a set payload and to a
 * TreeSet, compared after every step; members mix integers (intsets), short strings (packed) and
 * long ones (tables).
 */
class SetPayloadModelTest {
  private static final long SEED = 20261130L;

  @Test
  void matchesATreeSetModel() {
    Random r = new Random(SEED);
    for (int trial = 0; trial < 24; trial++) {
      boolean intsOnly = trial % 3 == 0;
      int alphabet = 10 + r.nextInt(trial < 12 ? 200 : 1200);
      byte[] p = null;
      TreeSet<String> model = new TreeSet<>();
      for (int step = 0; step < 300; step++) {
        List<byte[]> batch = new ArrayList<>();
        for (int k = r.nextInt(4) == 0 ? 1 + r.nextInt(20) : 1; k > 0; k--) {
          batch.add(member(r, alphabet, intsOnly));
        }
        int[] changed = new int[1];
        if (p != null && r.nextInt(3) == 0) {
          int before = model.size();
          batch.forEach(b -> model.remove(text(b)));
          byte[] next = SetPayload.removeAll(p, batch, changed);
          assertEquals(before - model.size(), changed[0]);
          if (changed[0] == 0) {
            assertNull(next);
          } else {
            p = next;
          }
        } else {
          int before = model.size();
          batch.forEach(b -> model.add(text(b)));
          byte[] next = SetPayload.addAll(p, batch, changed);
          assertEquals(model.size() - before, changed[0]);
          p = next == null ? p : next;
        }
        if (p != null) {
          check(p, model, r, alphabet, intsOnly, SetPayload.INTSET_MAX);
        }
      }
    }
  }

  /**
   * One member added or removed at a time, as a chunked set's chunks are changed ({@code
   * SetPayload.add} with an INTSET limit, {@code remove}): a packed set's limit of 512 integers and
   * a chunk's, which has none. The encoding is the smallest that fits the members seen, as a
   * rebuild would choose it, except that a set never moves back to a smaller encoding.
   */
  @Test
  void singleChangesMatchATreeSetModelUnderBothIntsetLimits() {
    Random r = new Random(SEED + 1);
    for (int trial = 0; trial < 24; trial++) {
      boolean intsOnly = trial % 2 == 0;
      int intsetMax = trial % 4 < 2 ? SetPayload.INTSET_MAX : Integer.MAX_VALUE;
      int alphabet = 10 + r.nextInt(1500);
      byte[] p = null;
      TreeSet<String> model = new TreeSet<>();
      int largest = 0;
      for (int step = 0; step < 1200; step++) {
        byte[] m = member(r, alphabet, intsOnly);
        if (p != null && r.nextInt(4) == 0) {
          byte[] next = SetPayload.remove(p, m);
          assertEquals(model.remove(text(m)), next != null, "removed " + text(m));
          p = next == null ? p : next;
        } else {
          int before = p == null ? -1 : SetPayload.encoding(p);
          byte[] next = SetPayload.add(p, m, intsetMax);
          assertEquals(model.add(text(m)), next != null, "added " + text(m));
          p = next == null ? p : next;
          assertTrue(SetPayload.encoding(p) >= before, "never a smaller encoding");
        }
        if (step % 10 == 0 || model.size() < 3) {
          check(p, model, r, alphabet, intsOnly, intsetMax);
        }
        largest = Math.max(largest, model.size());
        if (intsOnly && SetPayload.encoding(p) != SetPayload.INTSET) {
          assertTrue(largest > intsetMax, "integers stay an intset up to " + intsetMax);
        }
      }
    }
  }

  /**
   * A removal from a PACKED payload is spliced out of its bytes: the result must be exactly the
   * payload a rebuild of the members left gives (PACKED in the same order, or an INTSET once only
   * integers are left, or the empty set), and an absent member changes nothing.
   */
  @Test
  void aRemovalFromAPackedSetIsTheEncodingOfTheMembersLeft() {
    Random r = new Random(SEED + 2);
    for (int trial = 0; trial < 2_000; trial++) {
      List<byte[]> members = new ArrayList<>();
      int size = 1 + r.nextInt(SetPayload.PACKED_MAX);
      int strings = r.nextInt(4) == 0 ? 1 : 1 + r.nextInt(size);
      for (int i = 0; i < size; i++) {
        String m = i < strings ? "s" + r.nextInt(1000) : Long.toString(r.nextInt(2000) - 1000);
        members.add(m.getBytes(StandardCharsets.ISO_8859_1));
      }
      byte[] p = SetPayload.encode(members);
      assertEquals(SetPayload.PACKED, SetPayload.encoding(p), "a packed set to start from");
      TreeSet<String> model = new TreeSet<>();
      members.forEach(b -> model.add(text(b)));
      while (!model.isEmpty()) {
        byte[] m =
            r.nextInt(5) == 0
                ? ("absent" + r.nextInt(10)).getBytes(StandardCharsets.ISO_8859_1)
                : List.copyOf(model)
                    .get(r.nextInt(model.size()))
                    .getBytes(StandardCharsets.ISO_8859_1);
        byte[] next = SetPayload.remove(p, m);
        if (!model.remove(text(m))) {
          assertNull(next, "removed an absent " + text(m));
          continue;
        }
        List<byte[]> left = new ArrayList<>();
        model.forEach(x -> left.add(x.getBytes(StandardCharsets.ISO_8859_1)));
        assertArrayEquals(SetPayload.encode(left), next, "without " + text(m));
        if (SetPayload.encoding(next) != SetPayload.PACKED) {
          break; // an INTSET or the empty set: removals from those are not spliced here
        }
        p = next;
      }
    }
  }

  private static byte[] member(Random r, int alphabet, boolean intsOnly) {
    int n = r.nextInt(alphabet);
    String s =
        intsOnly || r.nextInt(3) == 0
            ? Long.toString(r.nextInt(8) == 0 ? (long) n << 40 : n - alphabet / 2)
            : r.nextInt(40) == 0 ? "long-" + "x".repeat(64) + n : "s" + n;
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private static void check(
      byte[] p, NavigableSet<String> model, Random r, int alphabet, boolean ints, int intsetMax) {
    assertEquals(model.size(), SetPayload.size(p));
    TreeSet<String> actual = new TreeSet<>();
    SetPayload.members(p).forEach(b -> actual.add(text(b)));
    assertEquals(model, actual);
    java.util.List<byte[]> members = SetPayload.members(p);
    for (int i = 0; i < members.size(); i += 1 + members.size() / 7) {
      assertEquals(text(members.get(i)), text(SetPayload.member(p, i)), "member " + i);
    }
    for (int k = 0; k < 5; k++) {
      byte[] m = member(r, alphabet, ints);
      assertEquals(model.contains(text(m)), SetPayload.contains(p, m), text(m));
    }
    if (model.size() > intsetMax) {
      assertEquals(SetPayload.TABLE, SetPayload.encoding(p));
    }
    if (!Arrays.asList(SetPayload.INTSET, SetPayload.PACKED, SetPayload.TABLE)
        .contains(SetPayload.encoding(p))) {
      throw new AssertionError("unknown encoding");
    }
  }
}
