package dev.larder.bench.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.measure.InterleavedLoop;
import dev.larder.bench.measure.TimedLoop;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The throughput scenario's plans (interleaved: one trial naming every implementation, which
 * {@code --only} filters; sequential: one trial each) and the interleaved loop's rounds (its
 * timings are benchmarks, not tests).
 */
class ThroughputScenarioTest {

  private final ThroughputScenario scenario = new ThroughputScenario();

  @Test
  void interleavedByDefaultPlansOneTrialNamingEveryIncludedImplementation() {
    List<Trial> all = scenario.plan(new RunOptions(false, Map.of(), Set.of()));
    assertEquals(1, all.size());
    assertEquals(ThroughputScenario.INTERLEAVED, all.get(0).implementation());
    assertTrue(all.get(0).implementations().containsAll(
        List.of("Larder-offheap", "Larder-heap", "Caffeine", "OHC")), all.toString());
    List<Trial> some = scenario.plan(
        new RunOptions(false, Map.of(), Set.of("Larder-offheap", "OHC")));
    assertEquals(List.of("Larder-offheap", "OHC"), some.get(0).implementations());
  }

  @Test
  void sequentialPlansOneTrialPerImplementation() {
    List<Trial> trials = scenario.plan(new RunOptions(false, Map.of("method", "sequential"),
        Set.of("Caffeine", "OHC")));
    assertEquals(List.of("Caffeine", "OHC"), trials.stream().map(Trial::implementation).toList());
    assertEquals(List.of("Caffeine"), trials.get(0).implementations());
    assertThrows(IllegalArgumentException.class, () -> scenario.plan(
        new RunOptions(false, Map.of("method", "interleaved,sequential"), Set.of())));
  }

  @Test
  void everySubjectGetsOneSliceARoundWithItsOperationsAndCpuTime() throws Exception {
    List<String> order = new ArrayList<>();
    List<List<TimedLoop.Worker>> subjects = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      // one thread a subject; each slice runs on a new thread, so a change of thread marks the
      // start of a slice, which notes the subject's name
      Thread[] last = {null};
      subjects.add(List.of(() -> {
        if (last[0] != Thread.currentThread()) {
          last[0] = Thread.currentThread();
          synchronized (order) {
            order.add(name);
          }
        }
        Thread.onSpinWait();
      }));
    }
    List<List<InterleavedLoop.Slice>> slices = InterleavedLoop.run(subjects, 0, 20, 4);
    assertEquals(3, slices.size());
    for (List<InterleavedLoop.Slice> mine : slices) {
      assertEquals(4, mine.size());
      for (InterleavedLoop.Slice slice : mine) {
        assertTrue(slice.operations() > 0, slice.toString());
        assertTrue(slice.wallNanos() >= 20_000_000L, slice.toString());
        assertTrue(slice.cpuNanos() >= 0, slice.toString());
      }
    }
    assertEquals(List.of("a", "b", "c", "c", "b", "a", "a", "b", "c", "c", "b", "a"), order);
  }

}
