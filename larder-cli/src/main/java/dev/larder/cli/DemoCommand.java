package dev.larder.cli;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.Storage;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import dev.larder.model.NodeGenerator;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./larder demo}: loads a Larder cache with generated content nodes (the model of the
 * content-node memory test, with value substitution), reads them back plus some absent keys, and
 * prints what the cache reports: entries, memory used against the bound, hit ratio, and get/put
 * latency percentiles.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Loads a Larder cache with generated content nodes, reads it back, and prints"
            + " its entries, memory used, hit ratio and get/put latency percentiles (progress on"
            + " the error stream).")
final class DemoCommand implements Callable<Integer> {

  private static final long MAX_ENTRIES = 1_000_000_000;

  /** The largest bound in MiB whose byte count fits a long. */
  private static final long MAX_MEMORY_MIB = Long.MAX_VALUE >> 20;

  @Option(
      names = "--entries",
      description = "Nodes to load, 1 to " + MAX_ENTRIES + " (default: ${DEFAULT-VALUE}).")
  long entries = 100_000;

  @Option(
      names = "--max-memory-mib",
      description =
          "The cache's bound in MiB, at least the"
              + " substitution dictionary's maximum plus 64 KiB (17 MiB) and at most "
              + MAX_MEMORY_MIB
              + " (default: ${DEFAULT-VALUE}).")
  long maxMemoryMib = 256;

  @Option(names = "--storage", description = "OFF_HEAP or HEAP (default: ${DEFAULT-VALUE}).")
  Storage storage = Storage.OFF_HEAP;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    checkRange("--entries", entries, 1, MAX_ENTRIES);
    // the cache sets the dictionary's maximum aside inside its bound and needs 64 KiB beside it
    long minMemoryMib = (dictionary.maximumMemory() + (64 << 10) + (1 << 20) - 1) >> 20;
    checkRange("--max-memory-mib", maxMemoryMib, minMemoryMib, MAX_MEMORY_MIB);
    PrintWriter out = spec.commandLine().getOut();
    NodeGenerator nodes = new NodeGenerator(42);
    try (Cache<Long, Node> cache =
        Cache.builder(Codecs.longs(), NodeCodecs.node(dictionary))
            .maximumMemory(maxMemoryMib << 20)
            .storage(storage)
            .dictionary(dictionary)
            .recordStats()
            .build()) {
      PhaseProgress loading =
          new PhaseProgress(spec.commandLine().getErr(), "loading nodes", entries);
      long t0 = System.nanoTime();
      for (long id = 0; id < entries; id++) {
        cache.put(id, nodes.node(id));
        loading.step(id + 1);
      }
      long loadNanos = System.nanoTime() - t0;
      long absent = Math.max(1, entries / 10);
      long wrong = 0;
      PhaseProgress reading =
          new PhaseProgress(spec.commandLine().getErr(), "reading them back", entries + absent);
      long t1 = System.nanoTime();
      for (long id = 0; id < entries + absent; id++) {
        Node node = cache.getIfPresent(id);
        if (node != null && !node.equals(nodes.node(id))) {
          wrong++;
        }
        reading.step(id + 1);
      }
      long readNanos = System.nanoTime() - t1;
      print(out, cache, dictionary, loadNanos, readNanos, absent, wrong);
      return wrong == 0 ? 0 : 1;
    }
  }

  /**
   * @throws CommandLine.ParameterException naming the option and its range if out of it
   */
  private void checkRange(String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT,
              "%s must be a whole number from %,d to %,d: %d",
              option,
              min,
              max,
              value));
    }
  }

  private void print(
      PrintWriter out,
      Cache<Long, Node> cache,
      ValueDictionary dictionary,
      long loadNanos,
      long readNanos,
      long absent,
      long wrong) {
    CacheStats stats = cache.stats();
    out.printf(
        Locale.ROOT,
        "Larder demo: %,d generated content nodes (the memory test's model), %s"
            + " storage, bound %,d MiB%n",
        entries,
        storage,
        maxMemoryMib);
    out.printf(
        Locale.ROOT,
        "  loaded in %.2f s; read back %,d keys (%,d of them never stored)" + " in %.2f s%n",
        loadNanos / 1e9,
        entries + absent,
        absent,
        readNanos / 1e9);
    out.printf(
        Locale.ROOT,
        "  entries        %,d (evicted %,d)%n",
        cache.estimatedSize(),
        stats.evictionCount());
    out.printf(
        Locale.ROOT,
        "  memory used    %,d bytes (%.1f MiB, %.0f B per entry),"
            + " of which the substitution dictionary %,d bytes%n",
        cache.memoryUsed(),
        cache.memoryUsed() / 1048576.0,
        (double) cache.memoryUsed() / Math.max(1, cache.estimatedSize()),
        dictionary.memoryUsed());
    out.printf(
        Locale.ROOT,
        "  hit ratio      %.4f (%,d hits, %,d misses)%n",
        stats.hitRatio(),
        stats.hitCount(),
        stats.missCount());
    out.printf(Locale.ROOT, "  get latency    %s%n", latency(stats.getLatency()));
    out.printf(Locale.ROOT, "  put latency    %s%n", latency(stats.putLatency()));
    out.printf(
        Locale.ROOT,
        "  values checked against the generator: %s%n",
        wrong == 0 ? "all equal" : wrong + " DIFFERENT");
    out.flush();
  }

  private static String latency(LatencySummary s) {
    return String.format(
        Locale.ROOT,
        "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (%,d ops)",
        micros(s.p50Nanos()),
        micros(s.p90Nanos()),
        micros(s.p99Nanos()),
        micros(s.p999Nanos()),
        micros(s.maxNanos()),
        s.count());
  }

  private static String micros(long nanos) {
    return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
  }
}
