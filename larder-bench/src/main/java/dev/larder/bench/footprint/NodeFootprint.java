package dev.larder.bench.footprint;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.Storage;
import dev.larder.bench.measure.MemoryProbe;
import dev.larder.bench.measure.MemorySnapshot;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.model.Node;
import dev.larder.model.NodeCodecs;
import dev.larder.model.NodeGenerator;
import java.lang.ref.Reference;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A standalone check of the content-node memory figure, one subject per JVM: N content nodes of the
 * content-node memory test (generator seed 42) under Long keys, in a {@code ConcurrentHashMap<Long,
 * Node>} or in Larder (off-heap or heap storage, with or without substitution). Prints heap, native
 * (resident-set) and total bytes per node, measured as the per-entry overhead study does, and
 * Larder's own {@code memoryUsed()}.
 *
 * <p>The full comparison against every peer is {@code ./larder bench memory}; this class exists so
 * the map can be measured with G1 string deduplication on (as the content-node memory test ran),
 * which is a JVM flag of the whole process. Run each subject in its own JVM with the same flags:
 *
 * <pre>
 * java -XX:+UseG1GC -Xms6g -Xmx6g -XX:+AlwaysPreTouch -XX:MarkSweepDeadRatio=0 \
 *      -XX:+UseStringDeduplication --enable-native-access=ALL-UNNAMED \
 *      -cp larder-bench/target/classes:$(cat larder-bench/target/classpath.txt) \
 *      dev.larder.bench.footprint.NodeFootprint map|offheap|heap subst|plain NODES
 * </pre>
 */
public final class NodeFootprint {

  private static final int WARM_UP_NODES = 20_000;
  private static final int GC_ROUNDS = 60;

  private NodeFootprint() {}

  /**
   * Measures one subject's footprint and prints it.
   *
   * @param args subject ({@code map}, {@code offheap}, {@code heap}), substitution ({@code subst}
   *     or {@code plain}; ignored for the map) and the number of nodes
   */
  // The fence ends the method: nothing after the measurement needs the holder kept, so no
  // finally is needed to keep it alive through an exception.
  @SuppressWarnings("ReachabilityFenceUsage")
  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: NodeFootprint map|offheap|heap subst|plain NODES");
      System.exit(2);
    }
    String subject = args[0];
    boolean substitute = args[1].equals("subst");
    int nodes = Integer.parseInt(args[2]);
    NodeGenerator generator = new NodeGenerator(42);
    load(subject, substitute, WARM_UP_NODES, generator, null);
    MemoryProbe.quietPeriod(5_000);
    MemoryProbe probe = new MemoryProbe(GC_ROUNDS);
    MemorySnapshot before = probe.settle();
    Object[] holder = new Object[2];
    long reported = load(subject, substitute, nodes, generator, holder);
    MemorySnapshot after = settleWithDeduplication(probe);
    long heap = after.heapDelta(before);
    long nativeBytes = after.nativeDelta(before);
    System.out.printf(
        Locale.ROOT,
        "%s %s %,d nodes: heap %.1f B/node, native %.1f B/node,"
            + " total %.1f B/node, own figure %s, heap settled %s%n",
        subject,
        subject.equals("map") ? "objects" : args[1],
        nodes,
        (double) heap / nodes,
        (double) nativeBytes / nodes,
        (double) (heap + nativeBytes) / nodes,
        reported < 0 ? "-" : String.format(Locale.ROOT, "%.1f B/node", (double) reported / nodes),
        after.stable());
    Reference.reachabilityFence(holder);
  }

  /** String deduplication runs in the background after collections: settle twice, apart. */
  private static MemorySnapshot settleWithDeduplication(MemoryProbe probe) {
    probe.settle();
    MemoryProbe.quietPeriod(3_000);
    return probe.settle();
  }

  /** Returns the subject's own memory figure, or -1 for the map. */
  private static long load(
      String subject, boolean substitute, int nodes, NodeGenerator generator, Object[] holder) {
    if (subject.equals("map")) {
      ConcurrentHashMap<Long, Node> map = new ConcurrentHashMap<>();
      for (long id = 0; id < nodes; id++) {
        map.put(id, generator.node(id));
      }
      keep(holder, map, null);
      return -1;
    }
    ValueDictionary dictionary = NodeCodecs.newDictionary();
    CacheBuilder<Long, Node> builder =
        Cache.builder(Codecs.longs(), substitute ? NodeCodecs.node(dictionary) : NodeCodecs.node())
            .storage(subject.equals("heap") ? Storage.HEAP : Storage.OFF_HEAP)
            .unbounded();
    if (substitute) {
      builder.dictionary(dictionary);
    }
    Cache<Long, Node> cache = builder.build();
    for (long id = 0; id < nodes; id++) {
      cache.put(id, generator.node(id));
    }
    if (!generator.node(nodes / 2).equals(cache.get((long) nodes / 2))) {
      throw new IllegalStateException("node read back differs");
    }
    long used = cache.memoryUsed();
    keep(holder, cache, dictionary);
    if (holder == null) {
      cache.close();
    }
    return used;
  }

  private static void keep(Object[] holder, Object subject, Object dictionary) {
    if (holder != null) {
      holder[0] = subject;
      holder[1] = dictionary;
    }
  }
}
