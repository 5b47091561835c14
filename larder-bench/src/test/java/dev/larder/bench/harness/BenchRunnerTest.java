package dev.larder.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenarios.StartupScenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs one tiny trial end to end: a forked JVM, its rows, the JSON, the table and the charts. */
class BenchRunnerTest {

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void runsATrialInAFreshJvmAndWritesEveryOutput(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream table = new ByteArrayOutputStream();
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    BenchRunner runner =
        new BenchRunner(
            dir,
            new PrintStream(table, true, StandardCharsets.UTF_8),
            new PrintStream(progress, true, StandardCharsets.UTF_8));
    RunOptions options = new RunOptions(true, Map.of("caches", "3"), Set.of("ConcurrentHashMap"));

    List<Row> rows = runner.run(new StartupScenario(), options);

    assertEquals(1, rows.size(), rows.toString());
    Row row = rows.getFirst();
    assertTrue(row.measured(), row.toString());
    assertEquals("ConcurrentHashMap", row.implementation());
    assertEquals(3L, row.get("caches"));
    Map<String, Object> doc = Json.parseObject(Files.readString(dir.resolve("startup.json")));
    assertEquals("startup", doc.get("scenario"));
    assertTrue(String.valueOf(doc.get("flags")).contains("-XX:MarkSweepDeadRatio=0"));
    assertTrue(String.valueOf(doc.get("jvm")).contains(System.getProperty("java.vm.version")));
    assertEquals(1, ((List<?>) doc.get("rows")).size());
    assertTrue(table.toString(StandardCharsets.UTF_8).contains("| ConcurrentHashMap | 3 |"));
    assertTrue(Files.size(dir.resolve("startup.png")) > 0);
    assertTrue(Files.readString(dir.resolve("startup.svg")).contains("<svg"));
    assertTrue(progress.toString(StandardCharsets.UTF_8).contains("[startup 1/1]"));
  }
}
