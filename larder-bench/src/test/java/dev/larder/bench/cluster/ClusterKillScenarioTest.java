package dev.larder.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The cluster-kill scenario's plan: one trial per mode, and {@code --only} picks among them. */
class ClusterKillScenarioTest {

  private static List<String> planned(Set<String> only) {
    return new ClusterKillScenario()
        .plan(new RunOptions(true, Map.of("kills", "2"), only)).stream()
            .map(Trial::implementation)
            .toList();
  }

  @Test
  void everyModeRunsUnlessOnlyNamesSome() {
    assertEquals(List.of("Larder REPLICATED", "Larder DISTRIBUTED"), planned(Set.of()));
    assertEquals(List.of("Larder DISTRIBUTED"), planned(Set.of("larder distributed")));
  }
}
