package dev.larder.bench.hitratio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Stand-alone entry point of the hit-ratio benchmark until it is registered as the
 * {@code hitratio} scenario of {@code ./larder bench}.
 *
 * <p>Arguments: {@code [--traces DIR] [--out DIR] [--only t1,t2] [--impl i1,i2]}. Writes
 * {@code hitratio.md} and {@code hitratio.json} to the output folder (default
 * {@code target/hitratio}) and prints the table.
 */
public final class HitRatioMain {

  private HitRatioMain() {}

  public static void main(String[] args) throws IOException {
    Path traces = Path.of("../shared/traces");
    Path out = Path.of("target/hitratio");
    List<TraceSpec> specs = TraceCatalog.ALL;
    List<String> impls = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--traces" -> traces = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--only" -> specs = Arrays.stream(args[++i].split(",")).map(TraceCatalog::named).toList();
        case "--impl" -> impls = Arrays.asList(args[++i].toLowerCase(Locale.ROOT).split(","));
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
