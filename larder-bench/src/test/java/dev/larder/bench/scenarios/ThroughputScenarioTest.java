package dev.larder.bench.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.measure.InterleavedLoop;
import dev.larder.bench.measure.TimedLoop;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The throughput scenario's plans (interleaved: one trial naming every implementation, which {@code
 * --only} filters; sequential: one trial each) and the interleaved loop's rounds (its timings are
 * benchmarks, not tests).
 */
class ThroughputScenarioTest {

  private final ThroughputScenario scenario = new ThroughputScenario();

  @Test
  void interleavedByDefaultPlansOneTrialNamingEveryIncludedImplementation() {
    List<Trial> all = scenario.plan(new RunOptions(false, Map.of(), Set.of()));
    assertEquals(1, all.size());
    assertEquals(ThroughputScenario.INTERLEAVED, all.get(0).implementation());
    assertTrue(
        all.get(0)
            .implementations()
            .containsAll(List.of("Larder-offheap", "Larder-heap", "Caffeine", "OHC")),
        all.toString());
    List<Trial> some =
        scenario.plan(new RunOptions(false, Map.of(), Set.of("Larder-offheap", "OHC")));
    assertEquals(List.of("Larder-offheap", "OHC"), some.get(0).implementations());
  }

  @Test
  void sequentialPlansOneTrialPerImplementation() {
    List<Trial> trials =
        scenario.plan(
            new RunOptions(false, Map.of("method", "sequential"), Set.of("Caffeine", "OHC")));
    assertEquals(List.of("Caffeine", "OHC"), trials.stream().map(Trial::implementation).toList());
    assertEquals(List.of("Caffeine"), trials.get(0).implementations());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            scenario.plan(
                new RunOptions(false, Map.of("method", "interleaved,sequential"), Set.of())));
  }

  /**
   * Each subject gets one slice a round, in alternating order, and each slice reports its
   * operations, wall time and the process's CPU time. The CPU time is checked against what can be
   * known independently: at least the CPU time the slice's own worker thread used (the process's
   * includes it), and at most what every core could have given the process over the slice's wall
   * time. A CPU time of zero, of the wrong thread (the test's, which sleeps through the slice) or
   * in the wrong unit fails.
   */
  @Test
  void everySubjectGetsOneSliceARoundWithItsOperationsAndCpuTime() throws Exception {
    ThreadMXBean threadTimes = ManagementFactory.getThreadMXBean();
    List<String> order = new ArrayList<>();
    List<List<TimedLoop.Worker>> subjects = new ArrayList<>();
    // per subject, per slice: the CPU time its worker thread had used at its last operation
    List<List<Long>> workerCpu = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      // one thread a subject; each slice runs on a new thread, so a change of thread marks the
      // start of a slice, which notes the subject's name
      Thread[] last = {null};
      List<Long> cpu = new ArrayList<>();
      workerCpu.add(cpu);
      subjects.add(
          List.of(
              () -> {
                if (last[0] != Thread.currentThread()) {
                  last[0] = Thread.currentThread();
                  synchronized (order) {
                    order.add(name);
                  }
                  cpu.add(0L);
                }
                cpu.set(cpu.size() - 1, threadTimes.getCurrentThreadCpuTime());
                Thread.onSpinWait();
              }));
    }
    List<List<InterleavedLoop.Slice>> slices = InterleavedLoop.run(subjects, 0, 20, 4);
    assertEquals(3, slices.size());
    int cores = Runtime.getRuntime().availableProcessors();
    for (int s = 0; s < slices.size(); s++) {
      List<InterleavedLoop.Slice> mine = slices.get(s);
      assertEquals(4, mine.size());
      for (int i = 0; i < mine.size(); i++) {
        InterleavedLoop.Slice slice = mine.get(i);
        assertTrue(slice.operations() > 0, slice.toString());
        assertTrue(slice.wallNanos() >= 20_000_000L, slice.toString());
        long worker = workerCpu.get(s).get(i);
        // the worker used a little CPU (starting, reaching the start line) before the slice's
        // first reading of the process's CPU time: allow a millisecond for it
        assertTrue(
            slice.cpuNanos() >= worker - 1_000_000L,
            "the process used less CPU than"
                + " its worker thread alone ("
                + worker
                + " ns): "
                + slice);
        // the process's CPU time is read just outside the wall-clock interval, and the test's
        // thread may be descheduled in between while compiler threads run: allow 50 ms (a unit
        // error, a factor of 1,000, is still far outside)
        assertTrue(
            slice.cpuNanos() <= (slice.wallNanos() + 50_000_000L) * cores,
            "more CPU than " + cores + " cores give in the slice's wall time: " + slice);
      }
    }
    assertEquals(List.of("a", "b", "c", "c", "b", "a", "a", "b", "c", "c", "b", "a"), order);
  }
}
