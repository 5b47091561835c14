package dev.larder.bench.hitratio;

import dev.larder.bench.json.Json;
import dev.larder.bench.scenario.RepositoryRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Stand-alone entry point of the hit-ratio benchmark until it is registered as the {@code hitratio}
 * scenario of {@code ./larder bench}.
 *
 * <p>Arguments: {@code [--traces DIR] [--out DIR] [--only t1,t2] [--impl i1,i2]}; the traces folder
 * defaults to the repository's {@code data/traces}. Writes {@code hitratio.md} and {@code
 * hitratio.json} to the output folder (default {@code target/hitratio}) and prints the table. With
 * {@code --from FILE[,FILE...]} it replays nothing and prints the table of {@code ./larder bench
 * hitratio} result files instead (one column per implementation, the margin of Larder over the
 * better of LRU and Caffeine, the means, and how many cells are short by more than half a point).
 */
public final class HitRatioMain {

  private HitRatioMain() {}

  /** Returns the rows of a {@code ./larder bench hitratio} results file. */
  private static List<HitRatioRow> fromBenchResult(Path file) throws IOException {
    List<HitRatioRow> rows = new ArrayList<>();
    Object parsed = Json.parseObject(Files.readString(file)).get("rows");
    if (!(parsed instanceof List<?> list)) {
      throw new IOException(file + " has no rows");
    }
    for (Object item : list) {
      if (item instanceof Map<?, ?> row
          && row.get("hitRatio") instanceof Number hit
          && row.get("byteHitRatio") instanceof Number byteHit) {
        rows.add(
            new HitRatioRow(
                String.valueOf(row.get("trace")),
                String.valueOf(row.get("size")),
                String.valueOf(row.get("implementation")),
                hit.doubleValue(),
                byteHit.doubleValue(),
                Boolean.TRUE.equals(row.get("byteBound"))));
      }
    }
    return rows;
  }

  public static void main(String[] args) throws IOException {
    Path traces = RepositoryRoot.resolve(HitRatioScenario.DEFAULT_TRACES);
    Path out = Path.of("target/hitratio");
    List<TraceSpec> specs = TraceCatalog.ALL;
    List<String> impls = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--traces" -> traces = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--only" ->
            specs = Arrays.stream(args[++i].split(",")).map(TraceCatalog::named).toList();
        case "--impl" -> impls = Arrays.asList(args[++i].toLowerCase(Locale.ROOT).split(","));
        case "--from" -> {
          List<HitRatioRow> rows = new ArrayList<>();
          for (String file : args[++i].split(",", -1)) {
            rows.addAll(fromBenchResult(Path.of(file)));
          }
          System.out.print(new HitRatioReport(rows).markdown("Larder", "LRU", "Caffeine"));
          return;
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<Contender> contenders = new ArrayList<>();
    for (Contender c : Contenders.all()) {
      if (impls == null || impls.contains(c.name().toLowerCase(Locale.ROOT))) {
        contenders.add(c);
      }
    }
    List<HitRatioRow> rows = new HitRatioRunner(traces, contenders, System.err).run(specs);
    HitRatioReport report = new HitRatioReport(rows);
    String table = report.markdown("Larder", "LRU", "Caffeine");
    Files.createDirectories(out);
    Files.writeString(out.resolve("hitratio.md"), table);
    Files.writeString(out.resolve("hitratio.json"), report.json());
    System.out.print(table);
  }
}
