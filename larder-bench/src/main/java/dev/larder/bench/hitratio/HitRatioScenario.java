package dev.larder.bench.hitratio;

import dev.larder.bench.scenario.ChartSpec;
import dev.larder.bench.scenario.Input;
import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.RepositoryRoot;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code ./larder bench hitratio}: replays the public traces that ship with the repository in
 * {@code data/traces} (or {@code -P traces=DIR}) at the sizes of {@link TraceCatalog} through LRU,
 * Caffeine, the clairvoyant optimum and Larder's real cache, and reports each cell's hit ratio
 * (0-1); on the adaptsize trace, also bounded by bytes with the byte hit ratio.
 *
 * <p>One trial per (trace, implementation). Parameters: {@code traces} (folder), {@code only}
 * (comma-separated trace names), {@code mib} (comma-separated byte bounds in MiB that replace the
 * listed ones of traces carrying sizes). {@code --quick} replays a few short traces. Larder's
 * byte-bounded rows also report {@code heldBytes}, the payload held at the end, and {@code
 * heldShare}, that over the bound.
 *
 * <p>A trace that is not in the catalogue is replayed with {@code file} (a path, gzip-compressed or
 * not), {@code format} (a {@link TraceFormat} name, case-insensitive) and {@code sizes}
 * (comma-separated entry bounds); {@code only} is then ignored, and {@code mib} adds byte bounds if
 * the format carries sizes. This is how the policy is checked on traces outside the shipped set.
 * Malformed parameters fail before any trial runs.
 *
 * <p>Relative {@code traces} and {@code file} paths are taken from the repository's root ({@link
 * RepositoryRoot}), whatever the working directory; the plan passes them to the trials as absolute
 * paths, and {@link #inputs} lists the same files so that a missing one is reported before anything
 * runs.
 */
public final class HitRatioScenario implements Scenario {

  private static final List<String> QUICK = List.of("cpp", "backf", "corda", "web07");

  /** The traces folder when {@code -P traces} is not given, relative to the repository's root. */
  static final String DEFAULT_TRACES = "data/traces";

  @Override
  public String name() {
    return "hitratio";
  }

  @Override
  public String summary() {
    return "hit ratio on public traces (LRU, Caffeine, optimum, Larder)";
  }

  @Override
  public List<Parameter> parameters() {
    return Stream.of("traces", "only", "mib", "file", "format", "sizes")
        .<Parameter>map(Parameter.Checked::new)
        .toList();
  }

  @Override
  public List<Trial> plan(RunOptions options) {
    Map<String, String> given = options.params();
    String mib = given.get("mib");
    if (mib != null) {
      mebibytes(mib); // fails now, before any trial runs, if the list is malformed
    }
    List<Trial> trials = new ArrayList<>();
    for (String trace : traceNames(options)) {
      for (Contender contender : Contenders.all()) {
        if (options.includes(contender.name())) {
          Map<String, String> params = new HashMap<>(given);
          params.remove("only");
          params.put("trace", trace);
          // the trials get absolute paths: they resolve nothing against their working directory
          params.put("traces", tracesFolder(given).toString());
          if (given.containsKey("file")) {
            params.put("file", RepositoryRoot.resolve(given.get("file")).toString());
          }
          trials.add(new Trial(contender.name(), trace, params));
        }
      }
    }
    return trials;
  }

  @Override
  public List<Input> inputs(RunOptions options) {
    Map<String, String> given = options.params();
    if (given.containsKey("file")) {
      return List.of(
          new Input(Path.of(traceOf(given).file()), "the trace file named by -P file", ""));
    }
    Path folder = tracesFolder(given);
    String origin =
        given.containsKey("traces")
            ? "expected in the folder named by -P traces (the repository's own set is "
                + DEFAULT_TRACES
                + ")"
            : "ships with the repository in "
                + DEFAULT_TRACES
                + ", sources in "
                + DEFAULT_TRACES
                + "/README.md; in a clone, git checkout -- "
                + DEFAULT_TRACES
                + " restores it;"
                + " -P traces=DIR names another folder";
    List<Input> inputs = new ArrayList<>();
    for (String name : traceNames(options)) {
      TraceSpec spec = TraceCatalog.named(name);
      inputs.add(
          new Input(folder.resolve(spec.file()), origin, TraceCatalog.contentSha256(spec.file())));
    }
    return inputs;
  }

  /** Returns the names of the traces this run replays, in order. */
  private static List<String> traceNames(RunOptions options) {
    Map<String, String> given = options.params();
    if (given.containsKey("file")) {
      return List.of(traceOf(given).name());
    }
    List<String> all = TraceCatalog.ALL.stream().map(TraceSpec::name).toList();
    List<String> names = options.listParam("only", all, QUICK);
    for (String name : names) {
      try {
        TraceCatalog.named(name); // an unknown name fails now, not in every trial
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "-P only=" + given.get("only") + ": only takes trace" + " names; " + e.getMessage(), e);
      }
    }
    return names;
  }

  /**
   * Returns the folder of the catalogue's traces: {@code traces} if given, else {@value
   * #DEFAULT_TRACES}, taken from the repository's root if relative.
   *
   * @param params the run's parameters
   */
  static Path tracesFolder(Map<String, String> params) {
    return RepositoryRoot.resolve(params.getOrDefault("traces", DEFAULT_TRACES));
  }

  /**
   * The trace a trial replays: the one named {@code trace} in the catalogue, or, if {@code file} is
   * given, that file read as {@code format} at {@code sizes}; with {@code mib}, those byte bounds
   * replace the trace's own if its format carries object sizes.
   *
   * @throws IllegalArgumentException if a parameter is missing or malformed
   */
  public static TraceSpec traceOf(Map<String, String> params) {
    TraceSpec spec =
        params.containsKey("file") ? customTrace(params) : TraceCatalog.named(params.get("trace"));
    String mib = params.get("mib");
    return mib != null && spec.format().carriesSizes()
        ? new TraceSpec(spec.name(), spec.file(), spec.format(), spec.sizes(), mebibytes(mib))
        : spec;
  }

  /**
   * Returns the spec of that file (a relative path is taken from the repository's root), named
   * after it (without {@code .gz} and {@code .trace} suffixes), with no byte bounds.
   *
   * @param params holding {@code file}, {@code format} and {@code sizes}
   * @throws IllegalArgumentException if a parameter is missing or malformed (the file itself is
   *     read only when the trial runs)
   */
  private static TraceSpec customTrace(Map<String, String> params) {
    String file = params.get("file");
    String formatName = params.get("format");
    String sizes = params.get("sizes");
    if (file == null || file.isBlank() || formatName == null || sizes == null) {
      throw new IllegalArgumentException(
          "a trace outside the catalogue needs -P file=PATH -P format=FORMAT -P sizes=N,N,...");
    }
    TraceFormat format = TraceFormat.named(formatName);
    String name =
        Path.of(file)
            .getFileName()
            .toString()
            .replaceFirst("\\.gz$", "")
            .replaceFirst("\\.trace$", "");
    // a relative path is taken from the repository's root, as the traces folder is, and not
    // from the traces folder
    return new TraceSpec(
        name,
        RepositoryRoot.resolve(file).toString(),
        format,
        positiveWholeNumbers("sizes", sizes, 0));
  }

  /**
   * Parses the {@code mib} parameter: byte bounds, in MiB, that replace the listed byte sizes of
   * the traces that carry object sizes (for sweeping a trace's byte bound).
   *
   * @throws IllegalArgumentException if an element is not a positive whole number
   */
  static long[] mebibytes(String list) {
    return positiveWholeNumbers("mib", list, 20);
  }

  /**
   * Returns the comma-separated positive whole numbers of {@code list}, each shifted left by {@code
   * shift} bits.
   *
   * @throws IllegalArgumentException naming {@code parameter} if an element is not a positive whole
   *     number or overflows once shifted
   */
  private static long[] positiveWholeNumbers(String parameter, String list, int shift) {
    String[] parts = list.split("\\s*,\\s*", -1);
    long[] values = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      long value;
      try {
        value = Long.parseLong(parts[i]);
      } catch (NumberFormatException e) {
        value = 0;
      }
      if (value <= 0 || value > (Long.MAX_VALUE >> shift)) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "-P %s=%s: %s must be a comma-separated list of whole numbers, each from 1 to %,d"
                    + " ('%s' is not)",
                parameter,
                list,
                parameter,
                Long.MAX_VALUE >> shift,
                parts[i]));
      }
      values[i] = value << shift;
    }
    return values;
  }

  @Override
  public String heapSize(RunOptions options) {
    return options.quick() ? "512m" : "2g";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    TraceSpec spec = traceOf(trial.params());
    Contender contender = Contenders.named(trial.implementation());
    Trace trace = spec.read(tracesFolder(trial.params()));
    List<Row> rows = new ArrayList<>();
    for (long size : spec.sizes()) {
      rows.add(measure(contender, trace, Bound.entries(size), context));
    }
    for (long bytes : spec.byteSizes()) {
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
    Row row =
        Row.of(contender.name())
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
        List.of(
            Column.of("trace"),
            Column.of("size"),
            Column.of("implementation"),
            new Column("hitRatio", "hit ratio"),
            new Column("byteHitRatio", "byte hit ratio")),
        List.of(
            new ChartSpec(
                "",
                "Hit ratio per trace and size (entry bound)",
                "cell",
                "implementation",
                "hitRatio",
                "hit ratio",
                false,
                Map.of("byteBound", false)),
            new ChartSpec(
                "-bytes",
                "Byte hit ratio, adaptsize bounded by bytes",
                "cell",
                "implementation",
                "byteHitRatio",
                "byte hit ratio",
                false,
                Map.of("byteBound", true))));
  }
}
