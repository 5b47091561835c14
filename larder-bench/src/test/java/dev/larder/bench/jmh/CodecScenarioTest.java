package dev.larder.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenarios;
import dev.larder.bench.scenario.Trial;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.util.ListStatistics;

/** The codec scenario's plan and rows (its timings are benchmarks, not tests). */
class CodecScenarioTest {

  private final CodecScenario scenario = new CodecScenario();

  @Test
  void isRegisteredAndPlansOneTrialPerFlavour() {
    assertTrue(Scenarios.names().contains("codec"));
    List<Trial> trials = scenario.plan(new RunOptions(true, Map.of(), Set.of()));
    assertEquals(
        List.of("substituted", "plain"), trials.stream().map(t -> t.param("flavour")).toList());
    assertTrue(scenario.plan(new RunOptions(true, Map.of(), Set.of("Caffeine"))).isEmpty());
  }

  @Test
  void poolsMustBePowersOfTwo() {
    assertEquals(
        List.of("1", "64"),
        CodecScenario.pools(new RunOptions(false, Map.of("pools", "1, 64"), Set.of())));
    for (String bad : List.of("3", "0", "-4", "x")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> scenario.plan(new RunOptions(false, Map.of("pools", bad), Set.of())));
      assertTrue(e.getMessage().contains("power of two"), e.getMessage());
    }
  }

  @Test
  void rowsCarryPercentilesAndTheTargetCheck() {
    ListStatistics fast = new ListStatistics();
    for (int i = 1; i <= 100; i++) {
      fast.addValue(900 + i);
    }
    Row row =
        CodecScenario.row(
            NodeCodecBenchmark.class.getName() + ".encodeAndDecode", "substituted", 1, fast);
    assertEquals("encodeAndDecode", row.get("operation"));
    assertEquals("substituted", row.get("variant"));
    assertEquals(1, row.get("pool"));
    assertEquals(901.0, row.get("p0"));
    assertEquals(fast.getPercentile(50), row.get("p50"));
    assertEquals(100L, row.get("samples"));
    assertEquals(true, row.get("withinTarget"));

    ListStatistics slow = new ListStatistics(new double[] {1_200, 1_300, 1_400});
    assertEquals(
        false, CodecScenario.row("x.encodeAndDecode", "plain", 1024, slow).get("withinTarget"));
    assertNull(
        CodecScenario.row("x.encode", "plain", 1024, slow).get("withinTarget"),
        "the target is on encode plus decode only");
  }
}
