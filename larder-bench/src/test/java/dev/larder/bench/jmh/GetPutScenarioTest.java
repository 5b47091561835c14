package dev.larder.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenarios;
import dev.larder.bench.scenario.Trial;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.util.ListStatistics;

/** The getput scenario's plan, key ring and rows (its timings are benchmarks, not tests). */
class GetPutScenarioTest {

  private final GetPutScenario scenario = new GetPutScenario();

  @Test
  void isRegisteredAndPlansOneTrialPerImplementation() {
    assertTrue(Scenarios.names().contains("getput"));
    assertEquals(
        List.of("Larder-offheap", "Larder-heap", "Caffeine", "ConcurrentHashMap"),
        scenario.plan(new RunOptions(true, Map.of(), Set.of())).stream()
            .map(Trial::implementation)
            .toList());
    assertEquals(
        List.of("Caffeine"),
        scenario.plan(new RunOptions(true, Map.of(), Set.of("Caffeine"))).stream()
            .map(Trial::implementation)
            .toList());
  }

  @Test
  void theRingIsSkewedAndStaysInTheKeySpace() {
    int keySpace = 1000;
    int[] ring = GetPutBenchmark.zipfRing(keySpace, new SplittableRandom(3));
    assertEquals(GetPutBenchmark.RING, ring.length);
    int[] counts = new int[keySpace];
    for (int k : ring) {
      assertTrue(k >= 0 && k < keySpace, "index " + k);
      counts[k]++;
    }
    int most = sortedDescending(counts)[0];
    // Zipf 0.99 over 1000 keys gives the first rank about 13% of draws, 130 times the mean.
    assertTrue(most > 50 * ring.length / keySpace, "hottest key drawn " + most + " times");
    // Unscrambled, the 20 hottest keys would be keys 0 to 19; scrambled, about 0.4 of them are.
    int twentieth = sortedDescending(counts)[19];
    int lowKeysAmongHottest = 0;
    for (int k = 0; k < 20; k++) {
      if (counts[k] >= twentieth) {
        lowKeysAmongHottest++;
      }
    }
    assertTrue(
        lowKeysAmongHottest < 10, lowKeysAmongHottest + " of keys 0-19 among the 20 hottest");
  }

  private static int[] sortedDescending(int[] counts) {
    return java.util.Arrays.stream(counts)
        .boxed()
        .sorted(java.util.Comparator.reverseOrder())
        .mapToInt(Integer::intValue)
        .toArray();
  }

  @Test
  void keysAreTenCharacters() {
    assertEquals("0000000042", GetPutBenchmark.key(42));
    assertEquals("0000099999", GetPutBenchmark.key(99_999));
  }

  @Test
  void rowsGiveTheMedianIterationAndItsSpread() {
    ListStatistics iterations = new ListStatistics(new double[] {900_000, 1_000_000, 1_100_000});
    Row row = GetPutScenario.row("Caffeine", "read_only", 4, iterations);
    assertEquals("Caffeine", row.get("implementation"));
    assertEquals("read_only", row.get("workload"));
    assertEquals(4, row.get("threads"));
    assertEquals(1_000_000.0, row.get("opsPerSecond"));
    assertEquals(20.0, (double) row.get("spreadPercent"), 1e-9);
    assertEquals(3L, row.get("iterations"));
  }
}
