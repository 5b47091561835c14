package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Trial;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProtocolTest {

  @Test
  void trialAndOptionsSurviveTheTripToTheChild() {
    Trial trial = new Trial("Ehcache-offheap", "512 B", Map.of("valueBytes", "512"));
    assertEquals(trial, Trial.fromJson(Json.parseObject(Json.write(trial.toJson()))));
    RunOptions options = new RunOptions(true, Map.of("nodes", "10"), Set.of("OHC"));
    assertEquals(options, RunOptions.fromJson(Json.parseObject(Json.write(options.toJson()))));
  }

  @Test
  void rowsSurviveTheTripBack() {
    Row row = Row.of("Larder").put("opsPerSecond", 1.5e6).put("threads", 4).put("ok", true);
    List<Row> parsed = ForkedTrial.parseRows(Json.write(List.of(row.fields())), "Larder");
    assertEquals(1, parsed.size());
    assertEquals(1.5e6, parsed.getFirst().number("opsPerSecond"));
    assertEquals(4L, parsed.getFirst().get("threads"));
    assertTrue(parsed.getFirst().measured());
  }

  @Test
  void unreadableOrEmptyResultsBecomeFailedRows() {
    for (String bad : List.of("not json", "[]", "[{\"no\":\"implementation\"}]")) {
      List<Row> rows;
      try {
        rows = ForkedTrial.parseRows(bad, "OHC");
      } catch (IllegalArgumentException e) {
        throw new AssertionError(bad, e);
      }
      assertEquals(1, rows.size(), bad);
      assertFalse(rows.getFirst().measured(), bad);
      assertEquals("OHC", rows.getFirst().implementation());
    }
  }

  @Test
  void describeNamesTheRootCause() {
    String text =
        TrialMain.describe(new IllegalStateException("outer", new IOException("disk gone")));
    assertTrue(text.contains("IllegalStateException: outer"), text);
    assertTrue(text.contains("IOException: disk gone"), text);
  }

  @Test
  void flagsAreTheSameForEveryTrialAndStateTheMeasurementSetup() {
    var scenario = new dev.larder.bench.scenarios.StartupScenario();
    List<String> flags = JvmFlags.forScenario(scenario, RunOptions.defaults());
    assertTrue(
        flags.containsAll(
            List.of(
                "-XX:+UseG1GC",
                "-Xms1g",
                "-Xmx1g",
                "-XX:+AlwaysPreTouch",
                "-XX:MarkSweepDeadRatio=0")),
        flags.toString());
    assertEquals(flags, JvmFlags.forScenario(scenario, RunOptions.defaults()));
  }
}
