package dev.larder.history;

import static dev.larder.history.Op.append;
import static dev.larder.history.Op.readList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.history.HistoryChecker.Orders;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-made list-append histories, each with one anomaly, and clean ones. */
class ListAppendCheckTest {

  private static CheckResult check(Histories h, Orders orders) {
    return HistoryChecker.check(h.build(), orders);
  }

  private static void assertOnly(CheckResult r, Map<String, Integer> expected) {
    assertEquals(expected, r.counts(), r.anomalies().toString());
  }

  @Test
  void serialHistoryIsClean() {
    CheckResult r =
        check(
            new Histories()
                .ok(append("x", 1), append("y", 1))
                .ok(readList("x", 1L), append("x", 2))
                .ok(readList("x", 1L, 2L), readList("y", 1L), append("y", 2))
                .ok(readList("x", 1L, 2L), readList("y", 1L, 2L)),
            Orders.REALTIME);
    assertTrue(r.valid(), r.anomalies().toString());
    assertTrue(r.edges().get(EdgeKind.WW) > 0 && r.edges().get(EdgeKind.WR) > 0, r.toString());
  }

  @Test
  void writeCycleIsG0() {
    CheckResult r =
        check(
            new Histories()
                .ok(append("x", 1), append("y", 2))
                .ok(append("x", 2), append("y", 1))
                .ok(readList("x", 1L, 2L), readList("y", 1L, 2L)),
            Orders.NONE);
    assertOnly(r, Map.of("G0", 1));
    assertEquals(
        List.of(1, 2),
        r.anomalies().getFirst().transactions().stream().map(Txn::id).sorted().toList());
  }

  @Test
  void readOfAnAbortedAppendIsG1a() {
    CheckResult r =
        check(new Histories().aborted(append("x", 1)).ok(readList("x", 1L)), Orders.NONE);
    assertOnly(r, Map.of("G1a", 1));
  }

  @Test
  void readOfAnUnknownTransactionsAppendIsAllowed() {
    CheckResult r =
        check(new Histories().unknown(append("x", 1)).ok(readList("x", 1L)), Orders.REALTIME);
    assertTrue(r.valid(), r.anomalies().toString());
  }

  @Test
  void readOfAnIntermediateAppendIsG1b() {
    CheckResult r =
        check(
            new Histories().ok(append("x", 1), append("x", 2)).ok(readList("x", 1L)), Orders.NONE);
    assertOnly(r, Map.of("G1b", 1));
  }

  @Test
  void circularInformationFlowIsG1c() {
    CheckResult r =
        check(
            new Histories()
                .ok(append("x", 1), readList("y", 1L))
                .ok(append("y", 1), readList("x", 1L)),
            Orders.NONE);
    assertOnly(r, Map.of("G1c", 1));
  }

  @Test
  void readSkewIsGSingle() {
    CheckResult r =
        check(
            new Histories()
                .ok(append("x", 1), append("y", 1))
                .ok(readList("x"), readList("y", 1L))
                .ok(readList("x", 1L)),
            Orders.NONE);
    assertOnly(r, Map.of("G-single", 1));
    Anomaly a = r.anomalies().getFirst();
    assertEquals(2, a.cycle().size());
    assertEquals(1, a.cycle().stream().filter(e -> e.kind() == EdgeKind.RW).count());
  }

  @Test
  void writeSkewIsG2() {
    CheckResult r =
        check(
            new Histories()
                .ok(readList("x"), readList("y"), append("x", 1))
                .ok(readList("x"), readList("y"), append("y", 1))
                .ok(readList("x", 1L), readList("y", 1L)),
            Orders.NONE);
    assertOnly(r, Map.of("G2", 1));
    assertEquals(
        2, r.anomalies().getFirst().cycle().stream().filter(e -> e.kind() == EdgeKind.RW).count());
  }

  @Test
  void lostUpdateIsFoundAndIsAGSingleCycle() {
    CheckResult r =
        check(
            new Histories()
                .ok(readList("x"), append("x", 1))
                .ok(readList("x"), append("x", 2))
                .ok(readList("x", 1L, 2L)),
            Orders.NONE);
    assertOnly(r, Map.of("lost-update", 1, "G-single", 1));
  }

  @Test
  void readsThatAreNotPrefixesOfEachOtherAreAnIncompatibleOrder() {
    CheckResult r =
        check(
            new Histories()
                .ok(append("x", 1))
                .ok(append("x", 2))
                .ok(readList("x", 1L, 2L))
                .ok(readList("x", 2L, 1L)),
            Orders.NONE);
    assertOnly(r, Map.of("incompatible-order", 1));
  }

  @Test
  void readOfAValueNobodyAppendedIsAGarbageRead() {
    CheckResult r = check(new Histories().ok(readList("x", 9L)), Orders.NONE);
    assertOnly(r, Map.of("garbage-read", 1));
  }

  @Test
  void staleReadByTheSameClientIsACycleOnlyWithProcessOrder() {
    Histories h =
        new Histories().ok(7, append("x", 1)).ok(7, readList("x")).ok(8, readList("x", 1L));
    assertTrue(check(h, Orders.NONE).valid());
    assertOnly(check(h, Orders.PROCESS), Map.of("G-single-process", 1));
  }

  @Test
  void staleReadAfterAnotherClientsCommitIsACycleOnlyWithRealTimeOrder() {
    Histories h = new Histories().ok(append("x", 1)).ok(readList("x")).ok(readList("x", 1L));
    assertTrue(check(h, Orders.PROCESS).valid());
    assertOnly(check(h, Orders.REALTIME), Map.of("G-single-realtime", 1));
  }

  @Test
  void concurrentTransactionsMayBeOrderedEitherWay() {
    // T2 read x before T1's append although T1 completed... no: they overlap in time, so
    // real-time order does not relate them and the stale-looking read is allowed.
    CheckResult r =
        check(
            new Histories()
                .timed(0, 100, append("x", 1))
                .timed(50, 150, readList("x"))
                .timed(200, 300, readList("x", 1L)),
            Orders.REALTIME);
    assertTrue(r.valid(), r.anomalies().toString());
  }

  @Test
  void repeatedAppendOfOneValueIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> check(new Histories().ok(append("x", 1)).ok(append("x", 1)), Orders.NONE));
  }
}
