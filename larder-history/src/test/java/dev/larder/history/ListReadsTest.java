package dev.larder.history;

import static dev.larder.history.Op.append;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.history.HistoryChecker.Orders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ListReads}: reads that agree share their elements, and each keeps its own values. */
class ListReadsTest {

  @Test
  void agreeingReadsShareOneArrayAndKeepTheirValues() {
    ListReads shared = new ListReads();
    List<Long> two = shared.parse("k", "1,2");
    List<Long> four = shared.parse("k", "1,2,3,4");
    List<Long> one = shared.parse("k", "1");
    List<Long> empty = shared.parse("k", "");
    List<Long> five = shared.read("k", new long[] {1, 2, 3, 4, 5, 99}, 5);
    assertEquals(List.of(1L, 2L), two);
    assertEquals(List.of(1L, 2L, 3L, 4L), four);
    assertEquals(List.of(1L), one);
    assertEquals(List.of(), empty);
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), five);
    assertTrue(LongPrefix.isPrefix((LongPrefix) four, (LongPrefix) five));
    assertTrue(((LongPrefix) one).sharesElementsWith((LongPrefix) four));
    assertEquals(List.of(1L, 2L).hashCode(), two.hashCode());
  }

  @Test
  void aDisagreeingReadHasItsOwnElementsAndIsReportedIncompatible() {
    ListReads shared = new ListReads();
    List<Long> a = shared.parse("k", "1,2,3");
    List<Long> b = shared.parse("k", "1,3");
    List<Long> other = shared.parse("j", "3");
    assertEquals(List.of(1L, 2L, 3L), a);
    assertEquals(List.of(1L, 3L), b);
    assertEquals(List.of(3L), other);
    assertFalse(((LongPrefix) a).sharesElementsWith((LongPrefix) b));
    List<Txn> history =
        List.of(
            new Txn(1, 1, Outcome.COMMITTED, List.of(append("k", 1)), 0, 1),
            new Txn(2, 1, Outcome.COMMITTED, List.of(append("k", 2)), 2, 3),
            new Txn(3, 1, Outcome.COMMITTED, List.of(append("k", 3)), 4, 5),
            new Txn(4, 2, Outcome.COMMITTED, List.of(new Op.ReadList("k", a)), 6, 7),
            new Txn(5, 3, Outcome.COMMITTED, List.of(new Op.ReadList("k", b)), 6, 7));
    assertEquals(
        Map.of("incompatible-order", 1),
        HistoryChecker.check(history, Orders.NONE).counts(),
        "the shared lists must be checked as their values");
  }

  @Test
  void aReadListKeepsASharedListAndCopiesAnyOther() {
    ListReads shared = new ListReads();
    List<Long> values = shared.parse("k", "5,6");
    assertSame(values, new Op.ReadList("k", values).values());
    List<Long> mutable = new ArrayList<>(List.of(5L, 6L));
    Op.ReadList r = new Op.ReadList("k", mutable);
    mutable.add(7L);
    assertEquals(List.of(5L, 6L), r.values());
    assertThrows(UnsupportedOperationException.class, () -> r.values().add(8L));
    List<Long> withNull = new ArrayList<>();
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> new Op.ReadList("k", withNull));
  }

  @Test
  void malformedListsAreRefused() {
    ListReads shared = new ListReads();
    assertThrows(NumberFormatException.class, () -> shared.parse("k", "1,,2"));
    assertThrows(NumberFormatException.class, () -> shared.parse("k", "1,2,"));
    assertThrows(NumberFormatException.class, () -> shared.parse("k", "x"));
    assertThrows(IndexOutOfBoundsException.class, () -> shared.read("k", new long[2], 3));
  }

  /**
   * A growing list read after every append, as a long trial records it: the reads hold each element
   * about once (here: at most four arrays' worth, counting the doublings), not once per read.
   */
  @Test
  void readsOfAGrowingListHoldEachElementAboutOnce() {
    ListReads shared = new ListReads();
    long[] list = new long[2_000];
    List<LongPrefix> reads = new ArrayList<>();
    for (int n = 1; n <= list.length; n++) {
      list[n - 1] = 1_000_000_000_000L + n;
      reads.add((LongPrefix) shared.read("k", list, n));
    }
    java.util.Set<Object> arrays =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    long slots = 0;
    for (LongPrefix r : reads) {
      if (arrays.add(r.elementsForTests())) {
        slots += r.elementsForTests().length;
      }
    }
    assertTrue(slots <= 4L * list.length, "the reads hold " + slots + " slots");
    for (int n = 1; n <= list.length; n++) {
      assertEquals(n, reads.get(n - 1).size());
      assertEquals(1_000_000_000_000L + n, reads.get(n - 1).get(n - 1));
    }
  }
}
