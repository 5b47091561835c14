package dev.larder.bench.cluster;

import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.Replication;
import dev.larder.cluster.Stacks;
import dev.larder.codec.Codecs;
import java.time.Duration;
import org.infinispan.AdvancedCache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.context.Flag;
import org.infinispan.manager.DefaultCacheManager;

/**
 * One member of a clustered cache under benchmark: Larder's or Infinispan's (embedded, heap
 * storage), both over the same JGroups stack ({@link Stacks#LOOPBACK}: the same protocols, the same
 * timeouts). Thread-safe as the underlying caches are.
 */
interface ClusterSubject extends AutoCloseable {

  /** The three shapes of the benchmark. */
  enum Shape {
    REPL_SYNC,
    REPL_ASYNC,
    DIST_SYNC
  }

  byte[] get(String key);

  void put(String key, byte[] value);

  int members();

  /** Returns entries held in this member's memory (its own and its backups). */
  long localEntries();

  /**
   * Returns the last state transfer's own duration in ms and its bytes, "0 0" if the implementation
   * does not report them.
   */
  default String lastTransfer() {
    return "0 0";
  }

  /** Waits until this member holds all it owns. */
  void awaitRebalanced();

  @Override
  void close();

  static ClusterSubject open(String implementation, Shape shape, String cluster, String name) {
    return switch (implementation) {
      case "Larder" -> new LarderSubject(shape, cluster, name);
      case "Infinispan" -> new InfinispanSubject(shape, cluster, name);
      default -> throw new IllegalArgumentException("unknown implementation " + implementation);
    };
  }

  /** Larder's clustered cache, off-heap storage (Larder's default), unbounded. */
  final class LarderSubject implements ClusterSubject {
    private final ClusteredCache<String, byte[]> cache;

    LarderSubject(Shape shape, String cluster, String name) {
      cache =
          ClusteredCache.builder(Codecs.forType(String.class), Codecs.bytes())
              .cluster(
                  ClusterConfig.builder()
                      .stack(Stacks.LOOPBACK)
                      .clusterName(cluster)
                      .nodeName(name)
                      .mode(
                          shape == Shape.DIST_SYNC
                              ? ClusterMode.DISTRIBUTED
                              : ClusterMode.REPLICATED)
                      .owners(2)
                      .replication(shape == Shape.REPL_ASYNC ? Replication.ASYNC : Replication.SYNC)
                      .timeout(Duration.ofSeconds(15))
                      .build())
              .build();
    }

    @Override
    public byte[] get(String key) {
      return cache.getIfPresent(key);
    }

    @Override
    public void put(String key, byte[] value) {
      cache.put(key, value);
    }

    @Override
    public int members() {
      return cache.members().size();
    }

    @Override
    public long localEntries() {
      return cache.localEntryCount();
    }

    @Override
    public String lastTransfer() {
      var stats = cache.rebalanceStats();
      return stats.lastMillis() + " " + stats.lastBytes();
    }

    @Override
    public void awaitRebalanced() {
      if (!cache.awaitRebalanced(Duration.ofMinutes(10))) {
        throw new IllegalStateException("state transfer did not finish in 10 minutes");
      }
    }

    @Override
    public void close() {
      cache.close();
    }
  }

  /**
   * Infinispan embedded: one cache manager with the same JGroups stack file, JMX and statistics
   * off; writes with IGNORE_RETURN_VALUES (as Infinispan advises when the previous value is not
   * needed). A joining member's getCache returns after its initial state transfer.
   */
  final class InfinispanSubject implements ClusterSubject {
    private final DefaultCacheManager manager;
    private final AdvancedCache<String, byte[]> cache;
    private final AdvancedCache<String, byte[]> writes;

    InfinispanSubject(Shape shape, String cluster, String name) {
      GlobalConfigurationBuilder global = GlobalConfigurationBuilder.defaultClusteredBuilder();
      global
          .transport()
          .clusterName(cluster)
          .nodeName(name)
          .addProperty("configurationFile", Stacks.LOOPBACK);
      global.jmx().enabled(false);
      global.cacheContainer().statistics(false);
      ConfigurationBuilder config = new ConfigurationBuilder();
      config.statistics().enabled(false);
      config
          .clustering()
          .cacheMode(
              switch (shape) {
                case REPL_SYNC -> CacheMode.REPL_SYNC;
                case REPL_ASYNC -> CacheMode.REPL_ASYNC;
                case DIST_SYNC -> CacheMode.DIST_SYNC;
              })
          .hash()
          .numOwners(2);
      manager = new DefaultCacheManager(global.build(), true);
      manager.defineConfiguration("bench", config.build());
      cache = manager.<String, byte[]>getCache("bench").getAdvancedCache();
      writes = cache.withFlags(Flag.IGNORE_RETURN_VALUES);
    }

    @Override
    public byte[] get(String key) {
      return cache.get(key);
    }

    @Override
    public void put(String key, byte[] value) {
      writes.put(key, value);
    }

    @Override
    public int members() {
      return manager.getMembers().size();
    }

    @Override
    public long localEntries() {
      return cache.withFlags(Flag.CACHE_MODE_LOCAL, Flag.SKIP_CACHE_LOAD).size();
    }

    @Override
    public void awaitRebalanced() {
      // getCache already waited for the initial state transfer (awaitInitialTransfer).
    }

    @Override
    public void close() {
      manager.stop();
    }
  }
}
