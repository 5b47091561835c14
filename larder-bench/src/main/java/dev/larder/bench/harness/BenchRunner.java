package dev.larder.bench.harness;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs scenarios: plans their trials, runs each in a fresh JVM, then writes
 * {@code <out>/<scenario>.json}, the charts beside it, and a Markdown table on {@code table}.
 * Progress goes to {@code progress} (the terminal's stderr), so stdout holds only the tables.
 */
public final class BenchRunner {

  private final Path outputDirectory;
  private final PrintStream table;
  private final PrintStream progress;
  private final ForkedTrial forker;

  /**
   * @param outputDirectory where result files go; created if missing
   * @param table receives the Markdown tables
   * @param progress receives progress lines
   */
  public BenchRunner(Path outputDirectory, PrintStream table, PrintStream progress) {
    this.outputDirectory = outputDirectory;
    this.table = table;
    this.progress = progress;
    this.forker = ForkedTrial.ofCurrentJvm();
  }

  /**
   * Runs one scenario to completion. Trials that fail are recorded as failed rows; only an I/O
   * error writing the results stops the scenario.
   *
   * @param scenario the scenario
   * @param options the run's options
   * @return the rows, in trial order
   * @throws IOException if a result file cannot be written
   */
  public List<Row> run(Scenario scenario, RunOptions options) throws IOException {
    List<Trial> trials = scenario.plan(options);
    List<String> flags = JvmFlags.forScenario(scenario, options);
    long start = System.nanoTime();
    progress.printf("== %s: %d trials, each in a fresh JVM (%s)%n",
        scenario.name(), trials.size(), String.join(" ", flags.subList(0, 5)));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < trials.size(); i++) {
      rows.addAll(runTrial(scenario, options, flags, trials.get(i), i + 1, trials.size()));
    }
    progress.printf("== %s done in %s%n", scenario.name(), Formats.seconds(System.nanoTime() - start));
    writeResults(scenario, options, flags, rows);
    return rows;
  }

  private List<Row> runTrial(
      Scenario scenario, RunOptions options, List<String> flags, Trial trial, int n, int of) {
    String name = trial.implementation() + (trial.label().isEmpty() ? "" : " " + trial.label());
    progress.printf("[%s %d/%d] %s ...%n", scenario.name(), n, of, name);
    long t0 = System.nanoTime();
    Path log = outputDirectory.resolve("logs").resolve(scenario.name() + "-" + n + ".log");
    List<Row> rows =
        forker.run(scenario.name(), trial, options, flags, scenario.trialTimeoutSeconds(options),
            log, msg -> progress.printf("      %s, %s: %s%n", name,
                Formats.seconds(System.nanoTime() - t0), msg));
    String outcome = rows.stream().allMatch(Row::measured) ? "ok"
        : String.valueOf(rows.getFirst().get(Row.STATUS)) + ": " + rows.getFirst().get(Row.REASON);
    progress.printf("[%s %d/%d] %s %s (%s)%n", scenario.name(), n, of, name, outcome,
        Formats.seconds(System.nanoTime() - t0));
    return rows;
  }

  private void writeResults(Scenario scenario, RunOptions options, List<String> flags,
      List<Row> rows) throws IOException {
    Files.createDirectories(outputDirectory);
    Path json = outputDirectory.resolve(scenario.name() + ".json");
    Files.writeString(json, Json.writePretty(document(scenario, options, flags, rows)));
    table.printf("%n### %s%n%n%s%n", scenario.name(),
        MarkdownTable.render(scenario.presentation(), rows));
    List<Path> written = new ArrayList<>(List.of(json));
    for (ChartSpec spec : scenario.presentation().charts()) {
      Path base = outputDirectory.resolve(scenario.name() + spec.fileSuffix());
      try {
        written.addAll(ChartWriter.write(spec, rows, base));
      } catch (IOException | RuntimeException | LinkageError e) {
        progress.printf("   chart %s not drawn: %s%n", base.getFileName(), e);
      }
    }
    progress.printf("   wrote %s%n", String.join(", ", written.stream().map(Path::toString).toList()));
  }

  static Map<String, Object> document(
      Scenario scenario, RunOptions options, List<String> flags, List<Row> rows) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("scenario", scenario.name());
    doc.put("summary", scenario.summary());
    doc.put("date", Environment.now());
    doc.put("commit", Environment.commit());
    doc.put("jvm", Environment.jvm());
    doc.put("flags", String.join(" ", flags));
    doc.put("machine", Environment.machine());
    doc.put("quick", options.quick());
    doc.put("params", new LinkedHashMap<String, Object>(options.params()));
    List<Object> list = new ArrayList<>();
    for (Row row : rows) {
      list.add(row.fields());
    }
    doc.put("rows", list);
    return doc;
  }
}
