package dev.larder.cluster;

import dev.larder.cluster.internal.ClusteredLarderCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jgroups.JChannel;

/** Several members of one clustered cache inside this JVM, on the in-process stack. */
final class InProcessCluster implements AutoCloseable {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  final List<ClusteredCache<String, String>> nodes = new ArrayList<>();
  private final String name =
      "test-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet();
  private final ClusterMode mode;
  private final Replication replication;
  private final long memoryBound;
  private final int owners;
  private final Consumer<ClusteredCacheBuilder<String, String>> custom;
  private final Consumer<ClusterConfig.Builder> clusterCustom;

  InProcessCluster(ClusterMode mode, Replication replication, int size) {
    this(mode, replication, size, -1);
  }

  InProcessCluster(ClusterMode mode, Replication replication, int size, long memoryBound) {
    this(mode, replication, size, memoryBound, 2, b -> {});
  }

  /**
   * @param owners owners in distributed mode
   * @param custom applied to each member's builder (loader, listener, expiry, near cache)
   */
  InProcessCluster(
      ClusterMode mode,
      Replication replication,
      int size,
      long memoryBound,
      int owners,
      Consumer<ClusteredCacheBuilder<String, String>> custom) {
    this(mode, replication, size, memoryBound, owners, custom, b -> {});
  }

  /**
   * @param clusterCustom applied to each member's cluster settings (partition handling)
   */
  InProcessCluster(
      ClusterMode mode,
      Replication replication,
      int size,
      long memoryBound,
      int owners,
      Consumer<ClusteredCacheBuilder<String, String>> custom,
      Consumer<ClusterConfig.Builder> clusterCustom) {
    this.clusterCustom = clusterCustom;
    this.mode = mode;
    this.replication = replication;
    this.memoryBound = memoryBound;
    this.owners = owners;
    this.custom = custom;
    for (int i = 0; i < size; i++) {
      add();
    }
    awaitMembers(size);
    awaitRebalanced();
  }

  ClusteredCache<String, String> add() {
    return add(memoryBound);
  }

  ClusteredCache<String, String> add(long bound) {
    ClusterConfig.Builder config =
        ClusterConfig.builder()
            .stack(Stacks.IN_PROCESS)
            .clusterName(name)
            .nodeName("n" + nodes.size())
            .mode(mode)
            .owners(owners)
            .replication(replication)
            .timeout(Duration.ofSeconds(5))
            .segments(64);
    clusterCustom.accept(config);
    ClusteredCacheBuilder<String, String> b =
        ClusteredCache.builder(String.class, String.class).cluster(config.build());
    if (bound > 0) {
      b.maximumMemory(bound);
    }
    custom.accept(b);
    ClusteredCache<String, String> node = b.build();
    nodes.add(node);
    return node;
  }

  ClusteredCache<String, String> node(int i) {
    return nodes.get(i);
  }

  void awaitMembers(int n) {
    await(
        () -> nodes.stream().filter(c -> !closed(c)).allMatch(c -> c.members().size() == n),
        "every member sees " + n + " members");
  }

  void awaitRebalanced() {
    for (ClusteredCache<String, String> c : nodes) {
      if (!closed(c) && !c.awaitRebalanced(Duration.ofSeconds(20))) {
        throw new AssertionError(c.nodeName() + " did not finish its state transfer");
      }
    }
  }

  private final List<ClusteredCache<String, String>> closedNodes = new ArrayList<>();

  void close(int i) {
    nodes.get(i).close();
    closedNodes.add(nodes.get(i));
  }

  boolean closed(ClusteredCache<String, String> c) {
    return closedNodes.contains(c);
  }

  List<ClusteredCache<String, String>> live() {
    return nodes.stream().filter(c -> !closed(c)).toList();
  }

  /** Returns the member's JGroups channel, for inserting test protocols (DISCARD). */
  static JChannel channel(ClusteredCache<?, ?> c) {
    return ((ClusteredLarderCache<?, ?>) c).engine().channel();
  }

  static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Override
  public void close() {
    for (ClusteredCache<String, String> c : nodes) {
      c.close();
    }
  }
}
