package dev.larder.simulator;

import dev.larder.bench.hitratio.Bound;
import dev.larder.bench.hitratio.Contender;
import dev.larder.bench.hitratio.HitRatioReport;
import dev.larder.bench.hitratio.HitRatioScenario;
import dev.larder.bench.hitratio.Outcome;
import dev.larder.bench.hitratio.Trace;
import dev.larder.bench.hitratio.TraceCatalog;
import dev.larder.bench.hitratio.TraceSpec;
import dev.larder.bench.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Development tool: replays every trace through variants of the simulated policy and scores each
 * against a baseline file written by {@code ./larder bench hitratio} or {@code HitRatioMain} (the
 * LRU and Caffeine columns): the worst margin over max(LRU, Caffeine) on any cell, the mean over
 * all entry-bounded cells, and, for the catalogue and the extra traces apart, the mean and the
 * cells short by more than half a point. Arguments: {@code BASELINE.json TRACES_DIR [variant...]},
 * e.g. {@code larder}; run with {@code -Dsim.shadow=false} to compare the hill-climbing and ghost
 * variants. {@code -Dtuner.extra=A.json,B.json} adds traces outside the catalogue: results files of
 * runs with {@code -P file=...}, whose parameters name the trace and whose rows are its baseline.
 */
public final class PolicyTuner {

  private PolicyTuner() {}

  public static void main(String[] args) throws IOException {
    Map<String, Double> baseline = new HashMap<>();
    readBaseline(Json.parse(Files.readString(Path.of(args[0]))), baseline);
    List<TraceSpec> specs = new ArrayList<>(TraceCatalog.ALL);
    Set<String> outside = new HashSet<>();
    String extra = System.getProperty("tuner.extra");
    if (extra != null) {
      for (String file : extra.split(",", -1)) {
        Map<String, Object> results = Json.parseObject(Files.readString(Path.of(file)));
        readBaseline(results, baseline);
        TraceSpec spec = HitRatioScenario.traceOf(parameters(results));
        specs.add(spec);
        outside.add(spec.name());
      }
    }
    String only = System.getProperty("tuner.only");
    if (only != null) {
      List<String> names = List.of(only.toLowerCase(Locale.ROOT).split(","));
      specs.removeIf(spec -> !names.contains(spec.name().toLowerCase(Locale.ROOT)));
    }
    Map<String, PolicyParams> variants = variants();
    List<String> chosen =
        args.length > 2
            ? List.of(args).subList(2, args.length)
            : new ArrayList<>(variants.keySet());
    Map<String, Trace> traces = new LinkedHashMap<>();
    for (TraceSpec spec : specs) {
      traces.put(spec.name(), spec.read(Path.of(args[1])));
    }
    for (String name : chosen) {
      score(name, new QueuePolicySim(name, variants.get(name)), specs, outside, traces, baseline);
    }
  }

  /**
   * Adds the rows of a results file (a bench document with {@code rows}, or HitRatioMain's array of
   * rows) to {@code baseline}, keyed trace/size/implementation.
   */
  private static void readBaseline(Object results, Map<String, Double> baseline) {
    Object rows = results instanceof Map<?, ?> document ? document.get("rows") : results;
    if (!(rows instanceof List<?> list)) {
      throw new IllegalArgumentException("a results file without rows");
    }
    for (Object item : list) {
      if (item instanceof Map<?, ?> row
          && row.get("hitRatio") instanceof Number hit
          && row.get("byteHitRatio") instanceof Number byteHit) {
        double value =
            Boolean.TRUE.equals(row.get("byteBound")) ? byteHit.doubleValue() : hit.doubleValue();
        baseline.put(
            row.get("trace") + "/" + row.get("size") + "/" + row.get("implementation"), value);
      }
    }
  }

  /** Returns the run's parameters ({@code file}, {@code format}, {@code sizes}, ...). */
  private static Map<String, String> parameters(Map<String, Object> results) {
    if (!(results.get("params") instanceof Map<?, ?> given)) {
      throw new IllegalArgumentException("a results file without parameters");
    }
    Map<String, String> params = new HashMap<>();
    given.forEach((name, value) -> params.put(String.valueOf(name), String.valueOf(value)));
    return params;
  }

  private static void score(
      String name,
      Contender sim,
      List<TraceSpec> specs,
      Set<String> outside,
      Map<String, Trace> traces,
      Map<String, Double> baseline) {
    double sum = 0;
    double caffeine = 0;
    int cells = 0;
    double worst = Double.MAX_VALUE;
    // per group, the catalogue [0] and the extra traces [1]: sum, cells, short cells
    double[][] groups = new double[2][3];
    StringBuilder bad = new StringBuilder();
    for (TraceSpec spec : specs) {
      Trace trace = traces.get(spec.name());
      List<Bound> bounds = new ArrayList<>();
      for (long s : spec.sizes()) {
        bounds.add(Bound.entries(s));
      }
      for (long s : spec.byteSizes()) {
        bounds.add(Bound.ofBytes(s));
      }
      for (Bound bound : bounds) {
        Outcome o = sim.replay(trace, bound, 0);
        double value = bound.bytes() ? o.byteHitRatio() : o.hitRatio();
        String cell = spec.name() + "/" + bound;
        double lru = baseline.getOrDefault(cell + "/LRU", 0.0);
        double caf = baseline.getOrDefault(cell + "/Caffeine", 0.0);
        double margin = value - Math.max(lru, caf);
        if (System.getProperty("tuner.cells") != null) {
          System.err.printf(
              Locale.ROOT,
              "CELL %s %s %.4f %.4f %.4f %.4f%n",
              name,
              cell,
              100 * value,
              100 * lru,
              100 * caf,
              100 * baseline.getOrDefault(cell + "/Larder", 0.0));
        }
        worst = Math.min(worst, margin);
        if (margin < -HitRatioReport.SHORT) {
          bad.append(
              String.format(Locale.ROOT, " %s:%.2f(%+.2f)", cell, 100 * value, 100 * margin));
        }
        if (!bound.bytes()) {
          sum += value;
          caffeine += caf;
          cells++;
          double[] group = groups[outside.contains(spec.name()) ? 1 : 0];
          group[0] += value;
          group[1]++;
          group[2] += margin < -HitRatioReport.SHORT ? 1 : 0;
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%-14s mean %.2f (caffeine %+.2f) worst %+.2f |%s%n",
        name,
        100 * sum / cells,
        100 * (sum - caffeine) / cells,
        100 * worst,
        bad);
    if (!outside.isEmpty()) {
      System.out.printf(
          Locale.ROOT,
          "%-14s catalogue: mean %.2f, %.0f of %.0f short | outside: mean %.2f, %.0f of %.0f short%n",
          name,
          100 * groups[0][0] / groups[0][1],
          groups[0][2],
          groups[0][1],
          100 * groups[1][0] / groups[1][1],
          groups[1][2],
          groups[1][1]);
    }
  }

  private static Map<String, PolicyParams> variants() {
    PolicyParams d = PolicyParams.defaults();
    // -Dtuner.minWindow and -Dtuner.maxWindow override the adaptation's limits of every variant
    d =
        d.withWindow(
            d.initialWindow(),
            Double.parseDouble(
                System.getProperty("tuner.minWindow", Double.toString(d.minWindow()))),
            Double.parseDouble(
                System.getProperty("tuner.maxWindow", Double.toString(d.maxWindow()))));
    // -Dtuner.ghostFactor: ghosts kept per resident entry (the store keeps one per eight)
    d =
        d.withGhost(
            d.ghostAdapt(),
            d.ghostStep(),
            Double.parseDouble(
                System.getProperty("tuner.ghostFactor", Double.toString(d.ghostFactor()))),
            d.ghostToMain(),
            d.ghostAdmit());
    Map<String, PolicyParams> v = new LinkedHashMap<>();
    // the store's policy: with -Dsim.shadow=true (the default) the window follows the shadow
    // gradient and the hill-climbing fields of the variants below are ignored
    v.put("larder", d);
    // admission that never rejects (a bias above any 4-bit count): the queues alone, an SLRU
    // behind the window, to see how close the structure itself comes to LRU on recency traces
    v.put("admitAll", d.withBias(16, false));
    v.put("fixed1", d.withClimb(false, 10, 0, 0.0625, 0.98));
    v.put("climb", d);
    v.put("climbFast", d.withClimb(true, 1, 512, 0.0625, 0.98));
    v.put("ghost", d.withClimb(false, 10, 0, 0.0625, 0.98).withGhost(true, 0.01, 1, false, false));
    v.put("ghost+climb", d.withGhost(true, 0.01, 1, false, false));
    v.put("ghostMain", d.withGhost(false, 0.01, 1, true, false));
    v.put("ghostAdmit", d.withGhost(false, 0.01, 1, false, true));
    v.put("climbI10", d.withWindow(0.10, 0.01, 0.8));
    v.put("climbI20", d.withWindow(0.20, 0.01, 0.8));
    v.put("climbI20s10", d.withWindow(0.20, 0.01, 0.8).withClimb(true, 10, 0, 0.1, 0.98));
    v.put("climbW5", d.withWindow(0.05, 0.01, 0.8));
    v.put("climbS5", d.withClimb(true, 5, 0, 0.1, 0.98));
    v.put("climbS5w", d.withClimb(true, 5, 0, 0.1, 0.98).withWindow(0.05, 0.01, 0.99));
    v.put("climbS20", d.withClimb(true, 20, 0, 0.0625, 0.98));
    for (int b : new int[] {1, 2, 16}) {
      v.put("bias" + b, d.withClimb(false, 10, 0, 0.0625, 0.98).withBias(b, false));
    }
    for (double w : new double[] {0.05, 0.2, 0.5, 0.8, 0.99}) {
      v.put("fixed" + (int) (w * 100), d.withClimb(false, 10, 0, 0.0625, 0.98).withWindow(w, w, w));
    }
    return v;
  }
}
