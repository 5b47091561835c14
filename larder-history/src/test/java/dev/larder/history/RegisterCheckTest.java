package dev.larder.history;

import static dev.larder.history.Op.read;
import static dev.larder.history.Op.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.history.HistoryChecker.Orders;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-made read-write register histories, each with one anomaly, and clean ones. */
class RegisterCheckTest {

  private static CheckResult check(Histories h) {
    return HistoryChecker.check(h.build(), Orders.NONE);
  }

  private static void assertOnly(CheckResult r, Map<String, Integer> expected) {
    assertEquals(expected, r.counts(), r.anomalies().toString());
  }

  @Test
  void serialReadModifyWritesAreClean() {
    CheckResult r =
        HistoryChecker.check(
            new Histories()
                .ok(read("x", null), write("x", 1), read("y", null), write("y", 10))
                .ok(read("x", 1L), write("x", 2))
                .ok(read("x", 2L), read("y", 10L), write("y", 11))
                .ok(read("x", 2L), read("y", 11L))
                .build(),
            Orders.REALTIME);
    assertTrue(r.valid(), r.anomalies().toString());
    assertTrue(r.edges().get(EdgeKind.WW) > 0 && r.edges().get(EdgeKind.WR) > 0, r.toString());
  }

  @Test
  void readOfAnAbortedWriteIsG1a() {
    assertOnly(check(new Histories().aborted(write("x", 1)).ok(read("x", 1L))), Map.of("G1a", 1));
  }

  @Test
  void readOfAnOverwrittenWriteIsG1b() {
    assertOnly(
        check(new Histories().ok(write("x", 1), write("x", 2)).ok(read("x", 1L))),
        Map.of("G1b", 1));
  }

  @Test
  void circularInformationFlowIsG1c() {
    assertOnly(
        check(new Histories().ok(write("x", 1), read("y", 1L)).ok(write("y", 1), read("x", 1L))),
        Map.of("G1c", 1));
  }

  @Test
  void readSkewIsGSingle() {
    assertOnly(
        check(
            new Histories()
                .ok(read("x", null), write("x", 1), read("y", null), write("y", 1))
                .ok(read("x", null), read("y", 1L))),
        Map.of("G-single", 1));
  }

  @Test
  void writeSkewIsG2() {
    assertOnly(
        check(
            new Histories()
                .ok(read("x", null), read("y", null), write("x", 1))
                .ok(read("x", null), read("y", null), write("y", 1))),
        Map.of("G2", 1));
  }

  @Test
  void lostUpdateIsFoundAndIsAG2Cycle() {
    assertOnly(
        check(
            new Histories().ok(read("x", null), write("x", 1)).ok(read("x", null), write("x", 2))),
        Map.of("lost-update", 1, "G2", 1));
  }

  @Test
  void readOfAValueNobodyWroteIsAGarbageRead() {
    assertOnly(check(new Histories().ok(read("x", 5L))), Map.of("garbage-read", 1));
  }

  @Test
  void aLongerCycleIsFoundThroughSeveralKeys() {
    // T1 -wr(x)-> T2 -wr(y)-> T3 -rw(z)-> T1: one anti-dependency over three transactions.
    CheckResult r =
        check(
            new Histories()
                .ok(read("z", null), write("z", 1), write("x", 1))
                .ok(read("x", 1L), write("y", 1))
                .ok(read("y", 1L), read("z", null)));
    assertOnly(r, Map.of("G-single", 1));
    assertEquals(3, r.anomalies().getFirst().cycle().size());
  }
}
