package dev.larder.bench.hitratio;

import java.util.List;
import java.util.Locale;

/**
 * The traces of {@code shared/traces} and their replay sizes.
 *
 * <p>Sizes come from the literature listed in the traces README (ARC paper, cache2k-benchmark,
 * LIRS2 parameters, Caffeine wiki). Where it lists none (scan, the address traces, adaptsize)
 * the sizes span a small, a middle and a large share of the trace's distinct keys. The
 * adaptsize trace is also replayed bounded by bytes (its distinct objects total 266 MiB).
 */
final class TraceCatalog {

  private static final long MIB = 1L << 20;

  static final List<TraceSpec> ALL = List.of(
      new TraceSpec("loop", "lirs/loop.trace.gz", TraceFormat.LIRS, 256, 512, 1000),
      new TraceSpec("2_pools", "lirs/2_pools.trace.gz", TraceFormat.LIRS, 100, 250, 450),
      new TraceSpec("cpp", "lirs/cpp.trace.gz", TraceFormat.LIRS, 20, 100, 500),
      new TraceSpec("cs", "lirs/cs.trace.gz", TraceFormat.LIRS, 100, 500, 1000),
      new TraceSpec("gli", "lirs/gli.trace.gz", TraceFormat.LIRS, 250, 500, 1000, 2000),
      new TraceSpec("ps", "lirs/ps.trace.gz", TraceFormat.LIRS, 100, 500, 1500),
      new TraceSpec("multi1", "lirs/multi1.trace.gz", TraceFormat.LIRS, 100, 500, 1000, 2000),
      new TraceSpec("multi2", "lirs/multi2.trace.gz", TraceFormat.LIRS, 600, 1800, 3000),
      new TraceSpec("backf", "lirs/backf.trace.gz", TraceFormat.LIRS, 200, 500, 1000),
      new TraceSpec("scan", "lirs/scan.trace.gz", TraceFormat.LIRS, 200, 500, 1000),
      new TraceSpec("oltp", "arc/OLTP.lis.gz", TraceFormat.ARC, 1000, 2000, 5000, 10000, 15000),
      new TraceSpec("p3", "arc/P3.lis.gz", TraceFormat.ARC, 25_000, 100_000, 400_000),
      new TraceSpec("p6", "arc/P6.lis.gz", TraceFormat.ARC, 8192, 32_768, 131_072),
      new TraceSpec("orm-busy", "cache2k/orm-busy.trace.gz", TraceFormat.INT32, 625, 2500, 10_000),
      new TraceSpec("web07", "cache2k/web07.trace.gz", TraceFormat.INT32, 300, 1200, 3000),
      new TraceSpec("corda", "corda/trace_vaultservice.gz", TraceFormat.INT64, 512, 1024, 2048),
      new TraceSpec("adaptsize", "adaptsize/request.trace.gz", TraceFormat.ADAPTSIZE,
          new long[] {1000, 4000, 16_000}, new long[] {8 * MIB, 32 * MIB, 128 * MIB}),
      new TraceSpec("gcc", "address/gcc.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
      new TraceSpec("gzip", "address/gzip.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
      new TraceSpec("mcf", "address/mcf.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
      new TraceSpec("swim", "address/swim.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
      new TraceSpec("twolf", "address/twolf.trace.gz", TraceFormat.ADDRESS, 500, 2000, 5000));

  private TraceCatalog() {}

  /** @return the spec named {@code name} (case-insensitive) */
  static TraceSpec named(String name) {
    for (TraceSpec spec : ALL) {
      if (spec.name().equalsIgnoreCase(name)) {
        return spec;
      }
    }
    throw new IllegalArgumentException("no trace named " + name.toLowerCase(Locale.ROOT));
  }
}
