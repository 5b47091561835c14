package dev.larder.cluster;

import dev.larder.cluster.internal.tx.ClusterTxEngine;
import dev.larder.codec.ByteSource;
import dev.larder.tx.Transaction;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * This member's side of a clustered {@link TxStore}: the store, and what a server built on it needs
 * beyond {@code TxCache}: the newest values this member holds (to list, count and sweep keys
 * without a transaction) and the owners of each segment in the epoch it installed (its slot map).
 * Made by {@link ClusteredTxStore.Builder#buildMember()}.
 *
 * <p>Thread-safe.
 */
public final class ClusteredTxMember implements AutoCloseable {

  private final TxStore store;
  private final ClusterTxEngine engine;
  private final List<TxCacheSpec<?, ?>> specs;

  ClusteredTxMember(TxStore store, ClusterTxEngine engine, List<TxCacheSpec<?, ?>> specs) {
    this.store = store;
    this.engine = engine;
    this.specs = List.copyOf(specs);
  }

  /** Returns the store; closing it closes this member. */
  public TxStore store() {
    return store;
  }

  /**
   * Hands {@code action} the newest committed value of each key of {@code cache} that this member
   * owns in the epoch it installed last (every key in REPLICATED mode), or, with {@code
   * primaryOnly}, of each key it is the primary of: over every member's {@code primaryOnly} walk,
   * each key once. Removed keys are skipped. Weakly consistent, as a concurrent map's iteration: a
   * key committed or removed during the walk may be seen either way, no snapshot is taken, and a
   * transaction prepared but not yet applied here is not waited for. Not a transactional read: a
   * transaction that must see the keys consistently reads them through {@code TxCache}.
   *
   * @param cache a cache declared to the builder (by name)
   * @param primaryOnly whether to walk only the keys this member is primary of
   * @param action gets each key and value, decoded by the cache's codecs
   * @throws IllegalArgumentException if no cache of that name was declared
   */
  public <K, V> void forEachNewest(
      TxCacheSpec<K, V> cache, boolean primaryOnly, BiConsumer<? super K, ? super V> action) {
    Objects.requireNonNull(action, "action");
    int index = indexOf(cache);
    engine.forEachNewest(
        index,
        primaryOnly,
        (key, value) ->
            action.accept(
                cache.keyCodec().decode(new ByteSource(key)), cache.valueCodec().decode(value)));
  }

  /**
   * Hands {@code action} the newest committed value of every key of {@code cache} in the whole
   * cluster, each key once, from its primary in the epoch this member installed last: the keys this
   * member is primary of are read here, every other primary is asked for its own (a round trip to
   * each, its keys in chunks). What a server's KEYS, SCAN and DBSIZE need in DISTRIBUTED mode,
   * where no member holds every key; in REPLICATED mode {@link #forEachNewest} with {@code
   * primaryOnly} false gives the same keys without a message. Removed keys are skipped. Weakly
   * consistent, as {@link #forEachNewest}: no snapshot is taken; a primary walks its keys under its
   * member's monitor, so its commits pause meanwhile (a large store pauses longer).
   *
   * @param cache a cache declared to the builder (by name)
   * @param action gets each key and value, decoded by the cache's codecs
   * @throws IllegalArgumentException if no cache of that name was declared
   * @throws ClusterTimeoutException if some primary did not serve its keys within the cluster
   *     timeout (it is unreachable, or the cluster is reconfiguring)
   */
  public <K, V> void forEachNewestInCluster(
      TxCacheSpec<K, V> cache, BiConsumer<? super K, ? super V> action) {
    Objects.requireNonNull(action, "action");
    int index = indexOf(cache);
    engine.forEachNewestInCluster(
        index,
        (key, value) ->
            action.accept(
                cache.keyCodec().decode(new ByteSource(key)), cache.valueCodec().decode(value)));
  }

  /**
   * Hands {@code action} the value of each key of {@code cache} at the snapshot of {@code tx} (an
   * open transaction of this member's store), as its reads would see them, without the
   * transaction's own writes (the caller overlays them); removed keys are skipped. If {@code tx}
   * then commits writes, its commit also fails ({@code TransactionConflictException}) if any other
   * commit created, changed or removed a key of the store after its snapshot, so a transaction that
   * lists keys and writes stays serializable (a key created meanwhile cannot be missing from what
   * it listed). The keys are not added to the transaction's read set. REPLICATED only: every member
   * holds every key and takes part in every commit; a DISTRIBUTED store has no such walk.
   *
   * @param tx an open transaction of {@link #store()}
   * @param cache a cache declared to the builder (by name)
   * @param action gets each key and value, decoded by the cache's codecs
   * @throws IllegalArgumentException if no cache of that name was declared
   * @throws IllegalStateException if the store is DISTRIBUTED, or {@code tx} is not open
   * @throws dev.larder.tx.TransactionConflictException if the snapshot cannot be read here (this
   *     member is adopting the cluster's state, or a pending transaction did not end in time):
   *     {@code inTransaction} runs the transaction again
   */
  public <K, V> void forEachAt(
      Transaction tx, TxCacheSpec<K, V> cache, BiConsumer<? super K, ? super V> action) {
    Objects.requireNonNull(action, "action");
    if (!tx.isActive()) {
      throw new IllegalStateException("the transaction is not open");
    }
    int index = indexOf(cache);
    engine.forEachAt(
        index,
        tx.snapshot(),
        (key, value) ->
            action.accept(
                cache.keyCodec().decode(new ByteSource(key)), cache.valueCodec().decode(value)));
  }

  private int indexOf(TxCacheSpec<?, ?> cache) {
    for (int i = 0; i < specs.size(); i++) {
      if (specs.get(i).name().equals(cache.name())) {
        return i;
      }
    }
    throw new IllegalArgumentException("no cache named " + cache.name() + " was declared");
  }

  /**
   * Returns the owners of {@code segment} in the epoch this member installed last, by member name,
   * primary first (the key's primary validates and locks it at commit). A key's segment is the
   * cluster's {@link KeyPartitioner}'s, if one was configured.
   *
   * @param segment in [0, the cluster's segments)
   * @return the owners; empty before this member installed an epoch, or for a segment out of range
   */
  public List<String> owners(int segment) {
    return engine.ownersOf(segment);
  }

  /**
   * Returns the members of the epoch this member installed last, by name: those that vote on its
   * transactions and own its segments (the JGroups view may differ for a while); empty before the
   * first epoch.
   */
  public List<String> members() {
    return engine.epochMembers();
  }

  /** Returns true if this member may commit now (READY in the epoch it installed last). */
  public boolean isReady() {
    return engine.isReady();
  }

  /** Returns the number of the epoch this member installed last (0 before any). */
  public long epoch() {
    return engine.epochNumber();
  }

  /**
   * Returns this member's engine as {@code type}, for tools and tests that inject faults into its
   * channel (the engine's classes are internal, not API, and may change in any release).
   *
   * @param type the engine's class, or a supertype of it
   * @throws IllegalArgumentException if the engine is not a {@code type}
   */
  public <T> T unwrap(Class<T> type) {
    if (!type.isInstance(engine)) {
      throw new IllegalArgumentException("this member's engine is no " + type.getName());
    }
    return type.cast(engine);
  }

  /** Closes the store: this member leaves the cluster. */
  @Override
  public void close() {
    store.close();
  }
}
