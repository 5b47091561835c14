package dev.larder.bench.hitratio;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The traces of {@code data/traces} (they ship with the repository; its README gives each one's
 * source, format and terms), their replay sizes and their content checksums.
 *
 * <p>Sizes come from the literature listed in the traces README (ARC paper, cache2k-benchmark,
 * LIRS2 parameters, Caffeine wiki). Where it lists none (scan, the address traces, adaptsize) the
 * sizes span a small, a middle and a large share of the trace's distinct keys. The adaptsize trace
 * is also replayed bounded by bytes (its distinct objects total 266 MiB).
 */
public final class TraceCatalog {

  private static final long MIB = 1L << 20;

  public static final List<TraceSpec> ALL =
      List.of(
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
          new TraceSpec(
              "orm-busy", "cache2k/orm-busy.trace.gz", TraceFormat.INT32, 625, 2500, 10_000),
          new TraceSpec("web07", "cache2k/web07.trace.gz", TraceFormat.INT32, 300, 1200, 3000),
          new TraceSpec("corda", "corda/trace_vaultservice.gz", TraceFormat.INT64, 512, 1024, 2048),
          new TraceSpec(
              "adaptsize",
              "adaptsize/request.trace.gz",
              TraceFormat.ADAPTSIZE,
              new long[] {1000, 4000, 16_000},
              new long[] {8 * MIB, 32 * MIB, 128 * MIB}),
          new TraceSpec("gcc", "address/gcc.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
          new TraceSpec("gzip", "address/gzip.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
          new TraceSpec("mcf", "address/mcf.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
          new TraceSpec("swim", "address/swim.trace.gz", TraceFormat.ADDRESS, 1000, 4000, 16_000),
          new TraceSpec("twolf", "address/twolf.trace.gz", TraceFormat.ADDRESS, 500, 2000, 5000));

  /**
   * The first 16 hexadecimal digits of the SHA-256 of each file's decompressed content, as {@code
   * data/traces/README.md} lists them: {@code ./larder bench --check-inputs} compares.
   */
  private static final Map<String, String> CONTENT_SHA256 =
      Map.ofEntries(
          Map.entry("lirs/loop.trace.gz", "a6a7dba751c93361"),
          Map.entry("lirs/2_pools.trace.gz", "9812f3d467c5b630"),
          Map.entry("lirs/cpp.trace.gz", "d965136830d3fcf2"),
          Map.entry("lirs/cs.trace.gz", "5b7d58a227cf1c75"),
          Map.entry("lirs/gli.trace.gz", "9c1696e46979dbb6"),
          Map.entry("lirs/ps.trace.gz", "b3da01d0fc2fa76a"),
          Map.entry("lirs/multi1.trace.gz", "99b394840da4e187"),
          Map.entry("lirs/multi2.trace.gz", "1eb04dca3c294970"),
          Map.entry("lirs/backf.trace.gz", "17491e1e6a1a9783"),
          Map.entry("lirs/scan.trace.gz", "8fcebce2af57993d"),
          Map.entry("arc/OLTP.lis.gz", "01fc36ce7c40a474"),
          Map.entry("arc/P3.lis.gz", "bad2e26607cb7c07"),
          Map.entry("arc/P6.lis.gz", "a44714ce487035e1"),
          Map.entry("cache2k/orm-busy.trace.gz", "016768842d9dc66a"),
          Map.entry("cache2k/web07.trace.gz", "6959eddd318157e0"),
          Map.entry("corda/trace_vaultservice.gz", "969090afdcf71025"),
          Map.entry("adaptsize/request.trace.gz", "ac08a7f483c1caf5"),
          Map.entry("address/gcc.trace.gz", "c1127e70eace8575"),
          Map.entry("address/gzip.trace.gz", "18252cd1df21a474"),
          Map.entry("address/mcf.trace.gz", "fc4e59a57d591de5"),
          Map.entry("address/swim.trace.gz", "63d7659ed39f06af"),
          Map.entry("address/twolf.trace.gz", "f314fdabcc190dba"));

  private TraceCatalog() {}

  /**
   * Returns the first 16 hexadecimal digits of the SHA-256 of its decompressed content.
   *
   * @param file a catalogue file, relative to the traces folder
   * @throws IllegalArgumentException if {@code file} is not in the catalogue
   */
  static String contentSha256(String file) {
    String sha = CONTENT_SHA256.get(file);
    if (sha == null) {
      throw new IllegalArgumentException("no checksum for " + file);
    }
    return sha;
  }

  /** Returns the spec named {@code name} (case-insensitive). */
  static TraceSpec named(String name) {
    for (TraceSpec spec : ALL) {
      if (spec.name().equalsIgnoreCase(name)) {
        return spec;
      }
    }
    throw new IllegalArgumentException(
        "no trace named "
            + name.toLowerCase(Locale.ROOT)
            + " (known: "
            + String.join(",", ALL.stream().map(TraceSpec::name).toList())
            + ")");
  }
}
