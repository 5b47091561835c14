package dev.larder.bench.hitratio;

import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./larder bench hitratio}: replays the public traces of {@code ../shared/traces} (or
 * {@code -p traces=DIR}) at the sizes of {@link TraceCatalog} through LRU, Caffeine, the
 * clairvoyant optimum and Larder's real cache, and reports each cell's hit ratio (0-1); on the
 * adaptsize trace, also bounded by bytes with the byte hit ratio.
 *
 * <p>One trial per (trace, implementation). Parameters: {@code traces} (folder),
 * {@code only} (comma-separated trace names), {@code mib} (comma-separated byte bounds in MiB
 * that replace the listed ones of traces carrying sizes; a malformed list fails before any
 * trial). {@code --quick} replays a few short traces. Larder's byte-bounded rows also report
 * {@code heldBytes}, the payload held at the end, and {@code heldShare}, that over the bound.
 */
public final class HitRatioScenario implements Scenario {

  private static final List<String> QUICK = List.of("cpp", "backf", "corda", "web07");

  @Override
  public String name() {
    return "hitratio";
  }

  @Override
  public String summary() {
    return "issue 6: hit ratio on public traces (LRU, Caffeine, optimum, Larder)";
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    List<String> all = TraceCatalog.ALL.stream().map(TraceSpec::name).toList();
    List<String> traces = options.listParam("only", all, QUICK);
    String folder = options.params().getOrDefault("traces", "../shared/traces");
    String mib = options.params().get("mib");
    if (mib != null) {
      mebibytes(mib); // fails now, before any trial runs, if the list is malformed
    }
    List<Trial> trials = new ArrayList<>();
    for (String trace : traces) {
      for (Contender contender : Contenders.all()) {
        if (options.includes(contender.name())) {
          Map<String, String> params = new HashMap<>(Map.of("trace", trace, "traces", folder));
          if (mib != null) {
            params.put("mib", mib);
          }
          trials.add(new Trial(contender.name(), trace, params));
        }
      }
    }
    return trials;
  }

  /**
   * Parses the {@code mib} parameter: byte bounds, in MiB, that replace the listed byte sizes of
   * the traces that carry object sizes (for sweeping a trace's byte bound).
   *
   * @throws IllegalArgumentException if an element is not a positive whole number
   */
  static long[] mebibytes(String list) {
    String[] parts = list.split("\\s*,\\s*");
    long[] bytes = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      long value;
      try {
        value = Long.parseLong(parts[i]);
      } catch (NumberFormatException e) {
        value = 0;
      }
      if (value <= 0 || value > (Long.MAX_VALUE >> 20)) {
        throw new IllegalArgumentException(
            "mib: '" + parts[i] + "' is not a positive whole number of MiB (in '" + list + "')");
      }
      bytes[i] = value << 20;
    }
    return bytes;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "512m" : "2g";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    TraceSpec spec = TraceCatalog.named(trial.param("trace"));
    Contender contender = Contenders.named(trial.implementation());
    Trace trace = spec.read(Path.of(trial.param("traces")));
    List<Row> rows = new ArrayList<>();
    for (long size : spec.sizes()) {
      rows.add(measure(contender, trace, Bound.entries(size), context));
    }
    String mib = trial.params().get("mib");
    long[] byteSizes = mib != null && spec.byteSizes().length > 0
        ? mebibytes(mib) : spec.byteSizes();
    for (long bytes : byteSizes) {
      rows.add(measure(contender, trace, Bound.ofBytes(bytes), context));
    }
    rows.removeIf(row -> row == null);
    return rows;
  }

  private static Row measure(Contender contender, Trace trace, Bound bound, TrialContext context) {
    if (!contender.supports(bound)) {
      return null;
    }
    double hitRatio = 0;
    double byteHitRatio = 0;
    long held = -1;
    for (int run = 0; run < contender.runs(); run++) {
      Outcome outcome = contender.replay(trace, bound, run);
      hitRatio += outcome.hitRatio();
      byteHitRatio += outcome.byteHitRatio();
      held = outcome.heldBytes();
    }
    context.progress(trace.name() + " " + bound);
    Row row = Row.of(contender.name())
        .put("trace", trace.name())
        .put("size", bound.toString())
        .put("cell", trace.name() + " " + bound)
        .put("byteBound", bound.bytes())
        .put("hitRatio", hitRatio / contender.runs())
        .put("byteHitRatio", byteHitRatio / contender.runs());
    if (held >= 0) {
      // the payload share of the bound: what the store's pages and index leave to data
      row.put("heldBytes", held).put("heldShare", (double) held / bound.value());
    }
    return row;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(Column.of("trace"), Column.of("size"), Column.of("implementation"),
            new Column("hitRatio", "hit ratio"), new Column("byteHitRatio", "byte hit ratio")),
        List.of(
            new ChartSpec("", "Hit ratio per trace and size (entry bound)", "cell",
                "implementation", "hitRatio", "hit ratio", false, Map.of("byteBound", false)),
            new ChartSpec("-bytes", "Byte hit ratio, adaptsize bounded by bytes", "cell",
                "implementation", "byteHitRatio", "byte hit ratio", false,
                Map.of("byteBound", true))));
  }
}
