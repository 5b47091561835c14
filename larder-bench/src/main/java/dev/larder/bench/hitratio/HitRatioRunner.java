package dev.larder.bench.hitratio;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Replays traces through contenders and collects one row per (trace, bound, contender). */
final class HitRatioRunner {

  private final Path folder;
  private final List<Contender> contenders;
  private final PrintStream progress;

  HitRatioRunner(Path folder, List<Contender> contenders, PrintStream progress) {
    this.folder = folder;
    this.contenders = List.copyOf(contenders);
    this.progress = progress;
  }

  List<HitRatioRow> run(List<TraceSpec> specs) throws IOException {
    List<HitRatioRow> rows = new ArrayList<>();
    for (TraceSpec spec : specs) {
      Trace trace = spec.read(folder);
      for (long size : spec.sizes()) {
        rows.addAll(cell(trace, Bound.entries(size)));
      }
      for (long bytes : spec.byteSizes()) {
        rows.addAll(cell(trace, Bound.ofBytes(bytes)));
      }
    }
    return rows;
  }

  private List<HitRatioRow> cell(Trace trace, Bound bound) {
    List<HitRatioRow> rows = new ArrayList<>();
    for (Contender contender : contenders) {
      if (!contender.supports(bound)) {
        continue;
      }
      double hitRatio = 0;
      double byteHitRatio = 0;
      long start = System.nanoTime();
      for (int run = 0; run < contender.runs(); run++) {
        Outcome outcome = contender.replay(trace, bound, run);
        hitRatio += outcome.hitRatio();
        byteHitRatio += outcome.byteHitRatio();
      }
      hitRatio /= contender.runs();
      byteHitRatio /= contender.runs();
      HitRatioRow row =
          new HitRatioRow(
              trace.name(),
              bound.toString(),
              contender.name(),
              hitRatio,
              byteHitRatio,
              bound.bytes());
      progress.printf(
          "%-10s %10s %-10s %7.3f%% (%d ms)%n",
          row.trace(),
          row.size(),
          row.implementation(),
          100 * hitRatio,
          (System.nanoTime() - start) / 1_000_000);
      rows.add(row);
    }
    return rows;
  }
}
