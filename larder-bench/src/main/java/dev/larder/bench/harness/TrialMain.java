package dev.larder.bench.harness;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Scenarios;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of a forked trial: {@code TrialMain <scenario> <trial JSON> <options JSON>}. Runs the
 * trial and prints its rows on stdout behind {@link TrialProtocol#ROWS}. A trial that throws
 * reports a failed row instead; the exit status is 0 whenever rows were printed.
 */
public final class TrialMain {

  private TrialMain() {}

  /**
   * Runs one trial in this JVM and prints its result.
   *
   * @param args scenario name, trial JSON, options JSON
   */
  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (args.length != 3) {
      System.err.println("usage: TrialMain <scenario> <trial-json> <options-json>");
      System.exit(2);
    }
    Trial trial = Trial.fromJson(Json.parseObject(args[1]));
    RunOptions options = RunOptions.fromJson(Json.parseObject(args[2]));
    List<Row> rows = runTrial(args[0], trial, options);
    List<Object> json = new ArrayList<>();
    for (Row row : rows) {
      json.add(row.fields());
    }
    out.println(TrialProtocol.ROWS + Json.write(json));
    out.flush();
    // Some peers leave non-daemon threads behind; the trial is over.
    System.exit(0);
  }

  static List<Row> runTrial(String scenarioName, Trial trial, RunOptions options) {
    Scenario scenario =
        Scenarios.named(scenarioName)
            .orElseThrow(() -> new IllegalArgumentException("no scenario " + scenarioName));
    TrialContext context =
        new TrialContext(options, msg -> System.err.println(TrialProtocol.PROGRESS + msg));
    try {
      List<Row> rows = scenario.run(trial, context);
      if (rows.isEmpty()) {
        return List.of(Row.failed(trial.implementation(), "the trial returned no rows"));
      }
      return rows;
    } catch (Exception | LinkageError | OutOfMemoryError e) {
      e.printStackTrace();
      return List.of(Row.failed(trial.implementation(), describe(e)));
    }
  }

  /**
   * Returns its class and message, and those of its root cause if different.
   *
   * @param e a throwable
   */
  @SuppressWarnings("ReferenceEquality") // a cause chain links objects, not equal values
  static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (root != e) {
      text += " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return text.length() > 400 ? text.substring(0, 400) + "..." : text;
  }
}
