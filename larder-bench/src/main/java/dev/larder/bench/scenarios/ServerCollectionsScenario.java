package dev.larder.bench.scenarios;

import dev.larder.bench.scenario.Parameter;
import dev.larder.bench.scenario.Presentation;
import dev.larder.bench.scenario.Presentation.Column;
import dev.larder.bench.scenario.Row;
import dev.larder.bench.scenario.RunOptions;
import dev.larder.bench.scenario.Scenario;
import dev.larder.bench.scenario.Trial;
import dev.larder.bench.scenario.TrialContext;
import dev.larder.bench.server.CollectionMemoryBench;
import java.util.List;
import java.util.Map;

/**
 * Memory per element of lists, sets (of integers and of strings), sorted sets and hashes: Larder's
 * server against redis-server (persistence off, the same memory limit), both filled the same way in
 * one trial, small (many keys of a few elements each: Redis's listpack and intset encodings) and
 * large (one key of many elements: its quicklist, hash table and skiplist). Bytes per element: the
 * server process's resident memory growth over the elements added, as the server scenario measures
 * memory per key, and the server's own {@code used_memory} growth beside it; Larder's rows give the
 * ratio to Redis's. Memory figures do not depend on the machine's load. Each fill's wall time is
 * given too (the large shape's is the build of one large key by pipelined RPUSH, SADD, ZADD or
 * HSET), with Larder's ratio to Redis's: a timing, which does.
 */
public final class ServerCollectionsScenario implements Scenario {
  private static final Parameter.WholeNumber SMALL_KEYS =
      new Parameter.WholeNumber("small-keys", 1, 100_000_000, 10_000, 2_000);
  private static final Parameter.WholeNumber SMALL_ELEMENTS =
      new Parameter.WholeNumber("small-elements", 1, 100_000, 16, 16);
  private static final Parameter.WholeNumber LARGE_ELEMENTS =
      new Parameter.WholeNumber("large-elements", 1, 100_000_000, 200_000, 50_000);
  private static final Parameter.WholeNumber MAXMEMORY =
      new Parameter.WholeNumber("maxmemory", 1L << 20, 1L << 40, 1L << 30, 1L << 30);
  private static final Parameter.Choices TYPES =
      new Parameter.Choices(
          "types",
          CollectionMemoryBench.types(),
          CollectionMemoryBench.types(),
          CollectionMemoryBench.types());

  private static final List<String> SERVERS = List.of("Larder", "Redis");

  @Override
  public String name() {
    return "server-collections";
  }

  @Override
  public String summary() {
    return "memory per element of lists, sets, sorted sets and hashes: Larder vs redis-server";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(SMALL_KEYS, SMALL_ELEMENTS, LARGE_ELEMENTS, MAXMEMORY, TYPES);
  }

  /** One trial measures every server, so that each Larder row can give its ratio to Redis's. */
  @Override
  public List<Trial> plan(RunOptions options) {
    List<String> servers = SERVERS.stream().filter(options::includes).toList();
    return servers.isEmpty()
        ? List.of()
        : List.of(
            new Trial(
                servers.getFirst(),
                String.join(", ", servers),
                Map.of(Trial.IMPLEMENTATIONS, String.join(",", servers))));
  }

  @Override
  public String heapSize(RunOptions options) {
    return "1g";
  }

  @Override
  public List<Row> run(Trial trial, TrialContext context) throws Exception {
    RunOptions o = context.options();
    return new CollectionMemoryBench(
            SMALL_KEYS.get(o),
            (int) SMALL_ELEMENTS.get(o),
            (int) LARGE_ELEMENTS.get(o),
            TYPES.get(o),
            MAXMEMORY.get(o),
            context::progress)
        .run(trial.implementations());
  }

  /** Twenty fills, each followed by a collection and a six-second wait, per server. */
  @Override
  public int trialTimeoutSeconds(RunOptions options) {
    return options.quick() ? 900 : 1800;
  }

  @Override
  public Presentation presentation() {
    return new Presentation(
        List.of(
            Column.of("implementation"),
            Column.of("type"),
            Column.of("shape"),
            Column.of("elements"),
            new Column("bytesPerElement", "bytes/element (RSS)"),
            new Column("usedMemoryPerElement", "bytes/element (used_memory)"),
            new Column("xRedis", "x Redis (RSS)"),
            new Column("fillSeconds", "fill s"),
            new Column("xRedisFill", "x Redis (fill time)")),
        List.of());
  }
}
