package dev.larder.cluster;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.cluster.internal.tx.ClusterTxEngine;
import dev.larder.codec.Codecs;
import dev.larder.tx.Isolation;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.WalConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Builds a {@link TxStore} whose caches every member of a cluster holds, with optimistic
 * transactions that commit on every member or on none (docs/design/cluster-transactions.md). {@code
 * Transaction}, {@code TxCache}, {@code Isolation} and {@code inTransaction} behave as for a local
 * store; what differs:
 *
 * <ul>
 *   <li>a commit is acknowledged once a majority of {@link Builder#members} members logged its
 *       decision; a member on the minority side of a partition cannot commit ({@link
 *       ClusterDegradedException} at once while its view holds fewer than a majority, {@link
 *       ClusterTimeoutException} after the cluster timeout while a reconfiguration does not end);
 *   <li>writes to a key locked by a prepared transaction fail a transaction's commit ({@code
 *       TransactionConflictException}); a {@code TxCache.put} or {@code remove} outside a
 *       transaction waits for the lock, up to the cluster timeout;
 *   <li>commit sequences are timestamps of the cluster's hybrid clocks, increasing per key and per
 *       member, not consecutive.
 * </ul>
 *
 * <pre>{@code
 * TxStore store = ClusteredTxStore.builder(ClusterConfig.builder()
 *         .stack(Stacks.LOOPBACK).clusterName("bank").initialClusterSize(3).build())
 *     .cache(ACCOUNTS).members(3).persistence(dir).build();
 * }</pre>
 */
public final class ClusteredTxStore {

  private ClusteredTxStore() {}

  /**
   * Returns a builder with serializable isolation, {@code members} = the cluster's {@code
   * initialClusterSize}, and no persistence.
   *
   * @param cluster the cluster: its stack, name, node name, timeout, segments, initial size, mode
   *     and owners are used; its mode must be {@link ClusterMode#REPLICATED} (every member holds
   *     every key) or {@link ClusterMode#DISTRIBUTED} (each key is held by its {@code owners}), and
   *     its replication {@link Replication#SYNC}
   */
  public static Builder builder(ClusterConfig cluster) {
    return new Builder(cluster);
  }

  /** Builds a clustered {@link TxStore}. Not thread-safe. */
  public static final class Builder {
    private final ClusterConfig cluster;
    private final List<TxCacheSpec<?, ?>> specs = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private Isolation isolation = Isolation.SERIALIZABLE;
    private int members;
    private WalConfig wal;
    private Duration checkpointEvery = Duration.ofMinutes(1);

    private Builder(ClusterConfig cluster) {
      this.cluster = Objects.requireNonNull(cluster, "cluster");
      if (cluster.mode() == ClusterMode.INVALIDATION) {
        throw new IllegalArgumentException(
            "clustered transactions need members that hold the"
                + " keys: use ClusterMode.REPLICATED or DISTRIBUTED (was INVALIDATION)");
      }
      if (cluster.replication() != Replication.SYNC) {
        throw new IllegalArgumentException(
            "clustered transactions commit synchronously: use" + " Replication.SYNC");
      }
      this.members = cluster.initialClusterSize();
    }

    /**
     * Declares a cache; every member must declare the same caches in the same order. Its spec must
     * not bound the cache (members must hold the same keys).
     *
     * @param spec the cache
     * @return this
     * @throws IllegalArgumentException if the name is taken or the spec sets a bound
     */
    public Builder cache(TxCacheSpec<?, ?> spec) {
      if (!names.add(spec.name())) {
        throw new IllegalArgumentException("duplicate cache name " + spec.name());
      }
      CacheBuilder<byte[], byte[]> probe = Cache.builder(Codecs.bytes(), Codecs.bytes());
      spec.settings().accept(probe);
      try {
        probe.unbounded();
      } catch (IllegalStateException bounded) {
        throw new IllegalArgumentException(
            "cache "
                + spec.name()
                + " sets a bound: a clustered"
                + " store's members must hold the same keys, so its caches are unbounded",
            bounded);
      }
      specs.add(spec);
      return this;
    }

    /**
     * Returns this.
     *
     * @param level the isolation of {@code begin()} and of single operations
     */
    public Builder isolation(Isolation level) {
      this.isolation = Objects.requireNonNull(level, "level");
      return this;
    }

    /**
     * Returns this.
     *
     * @param n the cluster's size: how many members it has when all are up (every member must say
     *     the same); a view with fewer than {@code n / 2 + 1} of them cannot commit
     */
    public Builder members(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("members must be >= 1, was " + n);
      }
      this.members = n;
      return this;
    }

    /**
     * Keeps this member's log in {@code directory}, fsync {@code always}.
     *
     * @param directory created if absent; one member's, not shared
     * @return this
     */
    public Builder persistence(Path directory) {
      return persistence(WalConfig.of(directory));
    }

    /**
     * Returns this.
     *
     * @param config the log's configuration; its policy must be {@code always} or {@code interval}
     *     (under {@code none} a process kill could lose a logged decision)
     */
    public Builder persistence(WalConfig config) {
      this.wal = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Returns this.
     *
     * @param policy the fsync policy, {@code always} or {@code interval(...)} (persistence first)
     */
    public Builder fsync(FsyncPolicy policy) {
      if (wal == null) {
        throw new IllegalStateException("set persistence(directory) before fsync");
      }
      wal = wal.withPolicy(policy);
      return this;
    }

    /**
     * Returns this.
     *
     * @param period time between checkpoints of this member's log; zero turns them off
     */
    public Builder checkpointEvery(Duration period) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("negative checkpoint period: " + period);
      }
      this.checkpointEvery = period;
      return this;
    }

    /**
     * Recovers this member's log, joins the cluster and waits until this member has installed an
     * epoch with a majority of the members (and its view holds the cluster's {@code
     * initialClusterSize}).
     *
     * @return the store
     * @throws IllegalArgumentException if no cache was declared, the fsync policy is {@code none},
     *     or a distributed cluster's {@code owners} is not above {@code members} minus a majority
     *     (a majority of members must hold an owner of every segment)
     * @throws ClusterException if this member cannot join in time
     */
    public TxStore build() {
      return buildMember().store();
    }

    /**
     * As {@link #build()}, returning this member's side of the store: the store, and the walks and
     * segment owners a server built on it needs.
     *
     * @return this member
     * @throws IllegalArgumentException as {@link #build()}
     * @throws ClusterException if this member cannot join in time
     */
    public ClusteredTxMember buildMember() {
      if (specs.isEmpty()) {
        throw new IllegalArgumentException("declare at least one cache");
      }
      int majority = members / 2 + 1;
      if (cluster.mode() == ClusterMode.DISTRIBUTED && cluster.owners() <= members - majority) {
        throw new IllegalArgumentException(
            "a distributed clustered store of "
                + members
                + " members needs owners >= "
                + (members - majority + 1)
                + " (was "
                + cluster.owners()
                + "): a majority may then act without any owner of a segment, and would lose"
                + " its commits");
      }
      if (wal != null && wal.policy() instanceof FsyncPolicy.None) {
        throw new IllegalArgumentException(
            "a clustered store's log must use fsync always or"
                + " interval: under none a process kill can lose a decision this member promised");
      }
      ClusterTxEngine engine =
          ClusterTxEngine.start(cluster, specs, isolation, members, wal, checkpointEvery);
      return new ClusteredTxMember(TxStores.open(specs, engine), engine, specs);
    }
  }
}
