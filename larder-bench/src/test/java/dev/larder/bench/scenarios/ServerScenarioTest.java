package dev.larder.bench.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServerScenarioTest {

  private static List<String> planned(Map<String, String> parameters) {
    return new ServerScenario()
        .plan(new RunOptions(false, parameters, Set.of())).stream()
            .flatMap(t -> t.implementations().stream())
            .toList();
  }

  @Test
  void everyServerRunsByDefaultAndForTheMemoryPart() {
    assertEquals(List.of("Larder", "Redis", "memcached"), planned(Map.of()));
    assertEquals(List.of("Larder", "Redis", "memcached"), planned(Map.of("parts", "memory")));
  }

  @Test
  void larderAndRedisShareOneTrialSoThatRowsCarryTheirRatio() {
    List<Trial> trials = new ServerScenario().plan(new RunOptions(false, Map.of(), Set.of()));
    assertEquals(List.of("Larder", "Redis"), trials.getFirst().implementations());
    assertEquals(List.of("memcached"), trials.get(1).implementations());
    assertEquals(2, trials.size());
  }

  @Test
  void aServerThatNoChosenPartMeasuresGetsNoTrial() {
    assertEquals(List.of("Larder", "Redis"), planned(Map.of("parts", "redis-benchmark")));
    assertEquals(List.of("Larder", "memcached"), planned(Map.of("parts", "memcslap")));
  }
}
