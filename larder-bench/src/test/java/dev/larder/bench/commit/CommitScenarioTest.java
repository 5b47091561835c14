package dev.larder.bench.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The commit scenario's medians of repeated stretches (the figures it reports per cell). */
class CommitScenarioTest {

  @Test
  void medianOfOddAndEvenCountsIgnoringNaN() {
    assertEquals(3.0, CommitScenario.median(new double[] {5, 1, 3}));
    assertEquals(2.5, CommitScenario.median(new double[] {4, 1, 3, 2}));
    assertEquals(2.0, CommitScenario.median(new double[] {Double.NaN, 2}));
    assertTrue(Double.isNaN(CommitScenario.median(new double[] {Double.NaN})));
  }

  @Test
  void medianRowKeepsTheCellAndTakesEachFiguresMedian() {
    List<Row> stretches = List.of(stretch(100, 9), stretch(300, 7), stretch(200, 8));
    Row row = CommitScenario.medianRow(stretches);
    assertEquals("Larder always", row.implementation());
    assertEquals(64, row.get("threads"));
    assertEquals(51200, row.get("valueBytes"));
    assertEquals(3, row.get("repeats"));
    assertEquals(200.0, row.number("commitsPerSecond"));
    assertEquals(8.0, row.number("cpuMicrosPerCommit"));
  }

  private static Row stretch(double commitsPerSecond, double cpu) {
    return Row.of("Larder always")
        .put("threads", 64)
        .put("valueBytes", 51200)
        .put("commitsPerSecond", commitsPerSecond)
        .put("p50Micros", 1.0)
        .put("p99Micros", 2.0)
        .put("commitsPerForce", Double.NaN)
        .put("megabytesPerSecond", commitsPerSecond / 10)
        .put("cpuMicrosPerCommit", cpu);
  }
}
