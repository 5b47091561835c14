package dev.larder.server.internal.cluster;

import dev.larder.Cache;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterMode;
import dev.larder.cluster.ClusteredTxMember;
import dev.larder.cluster.ClusteredTxStore;
import dev.larder.server.internal.keyspace.KeyObserver;
import dev.larder.server.internal.pubsub.KeyEvents;
import dev.larder.tx.TxStore;
import dev.larder.wal.WalConfig;
import java.util.Iterator;
import java.util.Map;

/**
 * A clustered server's keyspace kept in a clustered transactional store ({@code
 * cluster-transactions on}): the store the keyspace is built over ({@link #cache}), and EXEC run as
 * one cluster transaction ({@link #execute}), atomic and serializable against every member's
 * commands, whatever members' slots its keys are in (docs/design/server.md, "Clustering").
 *
 * <p>Thread-safe.
 */
public final class ClusterTransactions implements AutoCloseable {

  /** Attempts of one EXEC before it fails with the last conflict. */
  static final int EXEC_ATTEMPTS = TxStore.DEFAULT_ATTEMPTS;

  private final TxKeyspaceStore store;
  private final HeldChanges held = new HeldChanges();

  private ClusterTransactions(boolean distributed) {
    this.store = new TxKeyspaceStore(distributed);
  }

  /**
   * Joins the transactional store's cluster; returns once this member installed an epoch.
   *
   * @param cluster the store's cluster (REPLICATED, or DISTRIBUTED with its owners; SYNC; its own
   *     transport)
   * @param members the cluster's size: a majority of it must be present to commit
   * @param log this member's log (its commits, decisions and epochs, recovered here before it
   *     joins), or null to keep nothing on disk
   * @return the started member
   * @throws dev.larder.cluster.ClusterException if it cannot join in time
   * @throws IllegalArgumentException if DISTRIBUTED with too few owners for the majority
   * @throws IllegalStateException if the log's directory holds another format
   */
  static ClusterTransactions start(ClusterConfig cluster, int members, WalConfig log) {
    ClusterTransactions t = unstarted(cluster);
    t.join(cluster, members, log);
    return t;
  }

  /**
   * A member not started yet: the store the keyspace is built over exists, and refuses every read
   * and write with {@link IllegalStateException} until {@link #join}.
   *
   * @param cluster the store's cluster, as {@link #join} will be given it
   */
  static ClusterTransactions unstarted(ClusterConfig cluster) {
    return new ClusterTransactions(cluster.mode() == ClusterMode.DISTRIBUTED);
  }

  /**
   * Recovers this member's log, joins the transactional store's cluster and makes the member the
   * keyspace's store; returns once this member installed an epoch. Once only.
   *
   * @param cluster the store's cluster, as {@link #unstarted} was given it
   * @param members the cluster's size: a majority of it must be present to commit
   * @param log this member's log, or null to keep nothing on disk
   * @throws dev.larder.cluster.ClusterException if it cannot join in time (nothing is left open)
   * @throws IllegalArgumentException if DISTRIBUTED with too few owners for the majority
   * @throws IllegalStateException if the log's directory holds another format, or this member
   *     joined already
   */
  void join(ClusterConfig cluster, int members, WalConfig log) {
    if (started()) {
      throw new IllegalStateException("the transactional store's member started already");
    }
    ClusteredTxStore.Builder b =
        ClusteredTxStore.builder(cluster).cache(TxKeyspaceStore.KEYSPACE).members(members);
    if (log != null) {
      b.persistence(log);
    }
    ClusteredTxMember member = b.buildMember();
    try {
      store.attach(member);
    } catch (RuntimeException e) {
      member.close();
      throw e;
    }
  }

  /** Returns whether this member has recovered and joined (its store serves). */
  public boolean started() {
    return store.isAttached();
  }

  /**
   * Returns this member's side of the transactional store (its epoch, owners and members).
   *
   * @throws IllegalStateException before the member {@link #started}
   */
  public ClusteredTxMember member() {
    return store.member();
  }

  /** Returns the store the keyspace is built over. */
  public Cache<byte[], byte[]> cache() {
    return store;
  }

  /** Returns this member's entries it is primary of (the expiry sweep's walk). */
  Iterator<Map.Entry<byte[], byte[]>> primaryEntries() {
    return store.primaryEntries();
  }

  /** Returns this member's newest entries of the keys it owns (every key when REPLICATED). */
  Iterator<Map.Entry<byte[], byte[]>> ownedEntries() {
    return store.ownedEntries();
  }

  /**
   * Returns the keyspace's observer: {@code fanOut}, with the changes of EXEC attempts held until
   * they commit.
   *
   * @param fanOut the server's observer of key changes
   * @param keyEvents the scopes released changes are told in
   */
  public KeyObserver holding(KeyObserver fanOut, KeyEvents keyEvents) {
    held.attach(fanOut, keyEvents);
    return held;
  }

  /**
   * Tells the calling thread's EXEC attempt that it runs its next queued command (its held changes
   * are then told under that command's name).
   */
  public void command(long client, String name, String group) {
    held.command(client, name, group);
  }

  /** One run of an EXEC's queue. */
  @FunctionalInterface
  public interface Attempt {
    /**
     * Runs the queue in the calling thread's transaction; may run again on conflict, so its replies
     * must be written from a fixed mark.
     *
     * @return false to roll back without running the queue (a watched key changed)
     */
    boolean run();
  }

  /**
   * Runs {@code attempt} in one cluster transaction bound to the calling thread, commits it, and
   * runs it again on conflict (at most {@value #EXEC_ATTEMPTS} times); the keyspace changes it
   * makes are told to observers only once it commits.
   *
   * @return true if it committed, false if the attempt asked to roll back
   * @throws dev.larder.tx.TransactionConflictException if every attempt conflicted
   * @throws dev.larder.cluster.ClusterException if a step or the commit failed in the cluster
   *     (nothing of the transaction is applied)
   * @throws UnsupportedOperationException if a step cannot run inside a transaction here (a walk of
   *     the keyspace on a DISTRIBUTED store; nothing applied)
   */
  public boolean execute(Attempt attempt) {
    return store
        .store()
        .inTransaction(
            EXEC_ATTEMPTS,
            tx -> {
              TxKeyspaceStore.Binding b = store.bind(tx);
              held.hold();
              boolean released = false;
              try {
                boolean commit = attempt.run();
                store.unbind();
                if (b.unsupported != null) {
                  throw b.unsupported;
                }
                if (b.failure != null) {
                  throw b.failure;
                }
                if (b.conflict != null) {
                  throw b.conflict;
                }
                if (!commit) {
                  tx.rollback();
                  return false;
                }
                tx.commit();
                held.release();
                released = true;
                return true;
              } finally {
                store.unbind();
                if (!released) {
                  held.drop();
                }
              }
            });
  }

  @Override
  public void close() {
    store.close();
  }
}
