package dev.larder.bench.harness;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.ProgressCount;
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
 * Runs scenarios: plans their trials, runs each in a fresh JVM, then writes {@code
 * <out>/<scenario>.json}, the charts beside it, and a Markdown table on {@code table}. Progress
 * goes to {@code progress} (the terminal's stderr), so stdout holds only the tables: a line per
 * trial started and finished, the trials' own messages, and a {@link ProgressBar} over the
 * scenario's trials, or over a trial's counted steps while it reports them ({@link
 * dev.larder.bench.scenario.ProgressCount}). On a terminal the bar is redrawn in place below the
 * lines; elsewhere it prints plain lines.
 */
public final class BenchRunner {

  private final Path outputDirectory;
  private final PrintStream table;
  private final ProgressBar bar;
  private final ForkedTrial forker;

  /**
   * @param outputDirectory where result files go; created if missing
   * @param table receives the Markdown tables
   * @param progress receives progress lines
   */
  public BenchRunner(Path outputDirectory, PrintStream table, PrintStream progress) {
    this(outputDirectory, table, ProgressBar.of(progress));
  }

  BenchRunner(Path outputDirectory, PrintStream table, ProgressBar bar) {
    this.outputDirectory = outputDirectory;
    this.table = table;
    this.bar = bar;
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
    print(
        "== %s: %d trials, each in a fresh JVM (%s)",
        scenario.name(), trials.size(), String.join(" ", flags.subList(0, 5)));
    List<Row> rows = new ArrayList<>();
    try {
      ProgressBar.Task all =
          trials.isEmpty()
              ? null
              : synced(() -> bar.start(scenario.name() + " trials", trials.size()));
      for (int i = 0; i < trials.size(); i++) {
        rows.addAll(runTrial(scenario, options, flags, trials.get(i), i + 1, trials.size()));
        int done = i + 1;
        synced(
            () -> {
              bar.show(all);
              all.update(done);
              return null;
            });
      }
    } finally {
      synced(
          () -> {
            bar.close();
            return null;
          });
    }
    print("== %s done in %s", scenario.name(), Formats.seconds(System.nanoTime() - start));
    writeResults(scenario, options, flags, rows);
    return rows;
  }

  /** The bar is used by this thread and by the thread reading a trial's progress. */
  private <T> T synced(java.util.function.Supplier<T> body) {
    synchronized (bar) {
      return body.get();
    }
  }

  // Callers pass constant formats; Error Prone's @FormatMethod is not a dependency of the bench.
  @SuppressWarnings("AnnotateFormatMethod")
  private void print(String format, Object... args) {
    String line = String.format(java.util.Locale.ROOT, format, args);
    synced(
        () -> {
          bar.message(line);
          return null;
        });
  }

  /** Shows a trial's progress message: counted ones on the bar, others as lines. */
  private void trialProgress(String name, long t0, String message, ProgressBar.Task[] counted) {
    java.util.Optional<ProgressCount> count = ProgressCount.parse(message);
    if (count.isEmpty()) {
      print("      %s, %s: %s", name, Formats.seconds(System.nanoTime() - t0), message);
      return;
    }
    ProgressCount c = count.get();
    synced(
        () -> {
          if (counted[0] == null
              || !counted[0].label().equals(name + " " + c.label())
              || counted[0].total() != c.total()) {
            // The trial's steps began with it, not when its first count arrived.
            counted[0] = bar.start(name + " " + c.label(), c.total(), t0);
          }
          counted[0].update(c.done(), c.note());
          return null;
        });
  }

  private List<Row> runTrial(
      Scenario scenario, RunOptions options, List<String> flags, Trial trial, int n, int of) {
    String name = trial.implementation() + (trial.label().isEmpty() ? "" : " " + trial.label());
    print("[%s %d/%d] %s ...", scenario.name(), n, of, name);
    long t0 = System.nanoTime();
    ProgressBar.Task[] counted = new ProgressBar.Task[1];
    Path log = outputDirectory.resolve("logs").resolve(scenario.name() + "-" + n + ".log");
    List<Row> rows =
        forker.run(
            scenario.name(),
            trial,
            options,
            flags,
            scenario.trialTimeoutSeconds(options),
            log,
            msg -> trialProgress(name, t0, msg, counted));
    // a trial of several implementations names the one that did not measure
    Row unmeasured = rows.stream().filter(r -> !r.measured()).findFirst().orElse(null);
    String outcome =
        unmeasured == null
            ? "ok"
            : (trial.implementations().size() > 1 ? unmeasured.implementation() + " " : "")
                + unmeasured.get(Row.STATUS)
                + ": "
                + unmeasured.get(Row.REASON);
    print(
        "[%s %d/%d] %s %s (%s)",
        scenario.name(), n, of, name, outcome, Formats.seconds(System.nanoTime() - t0));
    return rows;
  }

  private void writeResults(
      Scenario scenario, RunOptions options, List<String> flags, List<Row> rows)
      throws IOException {
    Files.createDirectories(outputDirectory);
    Path json = outputDirectory.resolve(scenario.name() + ".json");
    Files.writeString(json, Json.writePretty(document(scenario, options, flags, rows)));
    table.printf(
        "%n### %s%n%n%s%n", scenario.name(), MarkdownTable.render(scenario.presentation(), rows));
    List<Path> written = new ArrayList<>(List.of(json));
    for (ChartSpec spec : scenario.presentation().charts()) {
      Path base = outputDirectory.resolve(scenario.name() + spec.fileSuffix());
      try {
        written.addAll(ChartWriter.write(spec, rows, base));
      } catch (IOException | RuntimeException | LinkageError e) {
        print("   chart %s not drawn: %s", base.getFileName(), e);
      }
    }
    print("   wrote %s", String.join(", ", written.stream().map(Path::toString).toList()));
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
