package dev.larder.bench.scenarios;

import dev.larder.bench.client.NearCacheBench;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.util.List;

/**
 * Jedis client-side caches in the same memory: how many GET replies Larder's near cache ({@code
 * larder-client}) holds against Jedis's own {@code DefaultCache} in a budget of bytes, and how fast
 * a near-cached key is read against a plain GET to the server (Larder's, in the trial's JVM on
 * loopback). Counts do not depend on the machine's load; read rates do.
 */
public final class ClientCacheScenario implements Scenario {
  private static final Parameter.WholeNumber BUDGET =
      new Parameter.WholeNumber("budget", 1L << 20, 1L << 32, 64L << 20, 16L << 20);
  private static final Parameter.WholeNumber VALUE_BYTES =
      new Parameter.WholeNumber("valueBytes", 1, 1 << 20, 100, 100);
  private static final Parameter.WholeNumber READ_KEYS =
      new Parameter.WholeNumber("readKeys", 1, 10_000_000, 10_000, 2_000);
  private static final Parameter.WholeNumber MILLIS =
      new Parameter.WholeNumber("millis", 1, 600_000, 5_000, 500);

  private static final List<String> IMPLEMENTATIONS =
      List.of(NearCacheBench.LARDER, NearCacheBench.JEDIS_DEFAULT, NearCacheBench.PLAIN_GET);

  @Override
  public String name() {
    return "client-cache";
  }

  @Override
  public String summary() {
    return "Jedis near caches: entries held in a byte budget (Larder vs Jedis's DefaultCache) and"
        + " reads/s of near-cached keys against GETs to the server";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(BUDGET, VALUE_BYTES, READ_KEYS, MILLIS);
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    return Trial.eachIncluded(IMPLEMENTATIONS, options);
  }

  /** Jedis's cache is filled until the heap grew by the budget: room for it, several times over. */
  @Override
  public String heapSize(RunOptions options) {
    long mib = BUDGET.get(options) >> 20;
    return Math.max(512, 4 * mib + 256) + "m";
  }

  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 180 : 900;
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    NearCacheBench bench =
        new NearCacheBench(
            BUDGET.get(o),
            (int) VALUE_BYTES.get(o),
            (int) READ_KEYS.get(o),
            MILLIS.get(o),
            (what, done) -> context.progress(what + ": " + done));
    return List.of(bench.run(trial.implementation()));
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            new Column("budgetBytes", "budget B"),
            new Column("valueBytes", "value B"),
            new Column("entries", "entries in budget"),
            new Column("bytesPerEntry", "B/entry"),
            new Column("measuredBytesPerEntry", "process B/entry"),
            new Column("readsPerSecond", "reads/s")),
        List.of());
  }
}
