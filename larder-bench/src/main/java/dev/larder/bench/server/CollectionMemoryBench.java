package dev.larder.bench.server;

import dev.larder.bench.scenario.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The server-collections scenario's trial (see {@code ServerCollectionsScenario}): memory per
 * element of lists, sets, sorted sets and hashes in Larder's server and in redis-server, each
 * filled the same way ({@link CollectionLoader}) in one run.
 *
 * <p>Per server and type, a server of its own (a large key written in many commands leaves space
 * that the server reclaims later, which would count against the next fill): a warm-up fill (so that
 * code, buffers and allocator pools any first fill brings in are counted before; its large key
 * written in one command, leaving nothing to reclaim), then the small shape (many keys of a few
 * elements) and the large one (one key of many elements), each measured as the server scenario
 * measures memory per key: the process's resident memory after the fill minus before, after a
 * collection and a wait ({@link ServerBench#settle}), over the elements added; and the server's own
 * count (INFO {@code used_memory}) the same way. Nothing is deleted between fills, so that memory a
 * server frees and keeps does not serve a later fill; what a large fill leaves to reclaim is part
 * of its figure, for both servers. Larder's rows carry {@code xRedis}: its bytes per element over
 * Redis's for the same type and shape.
 *
 * <p>Each row also gives the fill's wall time ({@code fillSeconds}: the commands of {@link
 * CollectionLoader#ELEMENTS_PER_COMMAND} elements sent pipelined on one connection, every reply
 * read), and Larder's rows its ratio to Redis's ({@code xRedisFill}). The large shape's is the
 * build of one large key: for a type kept as one value, each command rewrites the whole value, so
 * it grows with the square of the elements. A timing, so it depends on the machine's load, where
 * the memory figures do not.
 */
public final class CollectionMemoryBench {
  private final long smallKeys;
  private final int smallElements;
  private final int largeElements;
  private final List<String> types;
  private final long maxMemory;
  private final Consumer<String> progress;

  /**
   * @param smallKeys keys of the small shape
   * @param smallElements elements per key of the small shape
   * @param largeElements elements of the large shape's one key
   * @param types the types measured, of {@link CollectionLoader#TYPES}
   * @param maxMemory the memory limit each server gets (above what the fills need: nothing is
   *     evicted)
   * @param progress progress lines
   */
  public CollectionMemoryBench(
      long smallKeys,
      int smallElements,
      int largeElements,
      List<String> types,
      long maxMemory,
      Consumer<String> progress) {
    this.smallKeys = smallKeys;
    this.smallElements = smallElements;
    this.largeElements = largeElements;
    this.types = List.copyOf(types);
    this.maxMemory = maxMemory;
    this.progress = progress;
  }

  /** Returns the types a scenario may measure. */
  public static List<String> types() {
    return CollectionLoader.TYPES;
  }

  /**
   * Returns the rows of the servers asked for, Larder's with {@code xRedis} where Redis was
   * measured too.
   *
   * @param servers Larder, Redis or both
   * @throws Exception if a server or a fill fails
   */
  public List<Row> run(List<String> servers) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (String server : servers) {
      if (server.equals("Redis") && !LoadTools.onPath("redis-server")) {
        rows.add(Row.unavailable(server, "redis-server is not installed (Debian package)"));
        continue;
      }
      for (String type : types) {
        try (ServerProcess p =
            server.equals("Redis")
                ? ServerProcess.redis(maxMemory, null, "off")
                : ServerProcess.larder(maxMemory, 0, null, "off")) {
          rows.addAll(measure(server, p, type));
        }
      }
    }
    addRatios(rows);
    return rows;
  }

  private List<Row> measure(String server, ServerProcess p, String type) throws Exception {
    int port = p.respPort();
    progress.accept(server + ": " + type + " warm-up");
    CollectionLoader.fill(port, type, "warm:small:", 1_000, smallElements);
    int warmLarge = Math.max(1, largeElements / 10);
    CollectionLoader.fill(port, type, "warm:large:", 1, warmLarge, warmLarge);
    return List.of(
        fill(server, p, type, "small", smallKeys, smallElements),
        fill(server, p, type, "large", 1, largeElements));
  }

  private Row fill(String server, ServerProcess p, String type, String shape, long keys, int each)
      throws Exception {
    progress.accept(server + ": " + type + ", " + keys + " keys of " + each + " elements");
    ServerBench.settle();
    long before = p.residentBytes();
    long usedBefore = KeyLoader.usedMemory(p.respPort());
    long started = System.nanoTime();
    CollectionLoader.fill(p.respPort(), type, shape + ":" + type + ":", keys, each);
    double fillSeconds = (System.nanoTime() - started) / 1e9;
    ServerBench.settle();
    long elements = keys * each;
    return Row.of(server)
        .put("type", type)
        .put("shape", shape)
        .put("keys", keys)
        .put("elements", elements)
        .put("fillSeconds", fillSeconds)
        .put("bytesPerElement", (double) (p.residentBytes() - before) / elements)
        .put(
            "usedMemoryPerElement",
            (double) (KeyLoader.usedMemory(p.respPort()) - usedBefore) / elements);
  }

  /**
   * Puts on each Larder row its bytes per element over Redis's for the same type and shape, and its
   * fill time over Redis's where both rows have one.
   */
  static void addRatios(List<Row> rows) {
    for (Row larder : rows) {
      if (!larder.implementation().equals("Larder") || !larder.measured()) {
        continue;
      }
      for (Row redis : rows) {
        if (redis.implementation().equals("Redis")
            && redis.measured()
            && Objects.equals(redis.get("type"), larder.get("type"))
            && Objects.equals(redis.get("shape"), larder.get("shape"))) {
          larder.put("xRedis", larder.number("bytesPerElement") / redis.number("bytesPerElement"));
          if (larder.fields().containsKey("fillSeconds")
              && redis.fields().containsKey("fillSeconds")) {
            larder.put("xRedisFill", larder.number("fillSeconds") / redis.number("fillSeconds"));
          }
        }
      }
    }
  }
}
