package dev.larder.cluster;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.CacheLoader;
import dev.larder.RemovalListener;
import dev.larder.Storage;
import dev.larder.cluster.internal.ClusteredLarderCache;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Predicate;

/**
 * Builds a {@link ClusteredCache}: the local store's settings (bound, storage), a {@link
 * ClusterConfig}, and optionally a loader, expire-after-write, a removal listener and (distributed
 * mode) a near cache. Not thread-safe. What each of these means on a cluster (which member loads,
 * when an entry expires on each owner, which member's listener hears what) is on its setter and in
 * docs/design/cluster.md.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ClusteredCacheBuilder<K, V> {

  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;
  private long maximumMemory = -1;
  private Storage storage;
  private ClusterConfig cluster = ClusterConfig.builder().build();
  private CacheLoader<? super K, V> loader;
  private RemovalListener<? super K, ? super V> listener;
  private Executor executor = ForkJoinPool.commonPool();
  private Duration expireAfterWrite;
  private InstantSource clock = InstantSource.system();
  private long nearEntries;
  private ValueDictionary dictionary;
  private Cache<byte[], byte[]> localStore;
  private StoreJournal journal;
  private Predicate<byte[]> countedValues;

  ClusteredCacheBuilder(Codec<K> keyCodec, Codec<V> valueCodec) {
    this.keyCodec = Objects.requireNonNull(keyCodec, "keyCodec");
    this.valueCodec = Objects.requireNonNull(valueCodec, "valueCodec");
    if (!keyCodec.deterministic()) {
      throw new IllegalArgumentException(
          "the key codec for "
              + keyCodec.type().getName()
              + " is not deterministic; a clustered cache needs equal keys to encode equally");
    }
  }

  /**
   * Returns this builder.
   *
   * @param bytes this member's memory bound (see {@link CacheBuilder#maximumMemory}); unbounded by
   *     default
   */
  public ClusteredCacheBuilder<K, V> maximumMemory(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maximumMemory must be positive, was " + bytes);
    }
    this.maximumMemory = bytes;
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param storage where this member's store keeps its pages (see {@link CacheBuilder#storage})
   */
  public ClusteredCacheBuilder<K, V> storage(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param config the cluster to join and how to spread entries over it
   */
  public ClusteredCacheBuilder<K, V> cluster(ClusterConfig config) {
    this.cluster = Objects.requireNonNull(config, "config");
    return this;
  }

  /**
   * Read-through. A miss in {@link Cache#get(Object)} or {@link Cache#getAll} runs the loader on
   * the member that took the call (once per key at a time on that member; two members missing the
   * same key at once may both load it), then stores the value with a put-if-absent on the key's
   * primary: it is replicated, owned and expires like a put. If another write stored a value first,
   * the caller gets that value. A null result stores nothing. Checked exceptions reach callers
   * wrapped in {@link dev.larder.CacheLoadingException}.
   *
   * @param loader computes values on a miss
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> loader(CacheLoader<? super K, V> loader) {
    this.loader = Objects.requireNonNull(loader, "loader");
    return this;
  }

  /**
   * Entries expire this long after their last write. In replicated and distributed modes the key's
   * primary stamps the deadline (its clock's time plus {@code duration}) on the value, and every
   * owner, and state transfer, keeps that stamp: an entry expires at the same instant on every
   * owner, as far as the members' clocks agree. Each store also reclaims expired entries by the
   * same clock. In invalidation mode each member's entries expire by its own store. Every member of
   * a cluster must be built with the same duration.
   *
   * @param duration positive, at least a millisecond
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> expireAfterWrite(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.toMillis() < 1) {
      throw new IllegalArgumentException("expireAfterWrite must be at least 1 ms, was " + duration);
    }
    this.expireAfterWrite = duration;
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param clock the wall clock expiry deadlines are stamped and checked with (default the system
   *     clock; members on different hosts rely on their clocks agreeing)
   */
  public ClusteredCacheBuilder<K, V> clock(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Told of removals, on the {@link #executor}, with decoded keys and values; in replicated and
   * distributed modes each removal is reported once, on the key's primary: EXPLICIT and REPLACED
   * when the primary applies the write (whichever member took the call), EXPIRED when a write finds
   * the value expired or the primary's store reclaims it, SIZE when the primary's store evicts it.
   * Backup copies and entries moved by state transfer are not reported; nor is {@link
   * Cache#invalidateAll()}. In invalidation mode each member reports its own store's removals,
   * those caused by other members' writes included (EXPLICIT). Order between events is not
   * guaranteed; during a rebalance an event may be reported by the old and the new primary, or by
   * neither.
   *
   * <p>The primary hands EXPLICIT, REPLACED and write-time EXPIRED events to the executor while it
   * holds the key's segment lock: with a direct executor ({@code Runnable::run}) the listener runs
   * there, so it must be quick and must not call this cache.
   *
   * @param listener the listener; exceptions it throws are logged and dropped
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> removalListener(
      RemovalListener<? super K, ? super V> listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return this;
  }

  /**
   * Returns this builder.
   *
   * @param executor runs the removal listener (default {@link ForkJoinPool#commonPool()})
   */
  public ClusteredCacheBuilder<K, V> executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * A near cache (distributed mode only): this member keeps up to {@code entries} values of keys it
   * does not own, read from their primary, and the primary invalidates them on every write before
   * that write is acknowledged. See {@link ClusteredCache#nearStats()}.
   *
   * @param entries the near cache's entry bound, positive
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> nearCache(long entries) {
    if (entries <= 0) {
      throw new IllegalArgumentException("nearCache entries must be positive, was " + entries);
    }
    this.nearEntries = entries;
    return this;
  }

  /**
   * Declares the value dictionary the value codec substitutes through (codecs from {@link
   * ValueDictionary#substitute}); the cluster keeps it identical on every member, so an id written
   * on one member means the same value on all. It must be empty when the cache is built, each
   * member's own instance, with the same spaces, codecs and bounds on every member. Its memory
   * counts in {@link Cache#memoryUsed()} and its maximum is set aside inside {@link
   * #maximumMemory}. Conditional writes compare values by decoding them, since a value may be
   * stored inline or as an id. See docs/design/cluster.md for the protocol and its limits.
   *
   * @param dictionary a new, empty dictionary
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> dictionary(ValueDictionary dictionary) {
    this.dictionary = Objects.requireNonNull(dictionary, "dictionary");
    return this;
  }

  /**
   * Uses {@code store} as this member's own store instead of building one, and tells {@code
   * journal} of every change made to it from then on (see {@link StoreJournal}). The store may
   * already hold entries, recovered by the caller from its own record of an earlier run; they are
   * kept until the member has settled: when every member starts together, each segment starts from
   * the member whose journal recorded the newest epoch for it (docs/design/cluster.md, "Durable
   * members"), and the others drop their entries of it; a member that joins a running cluster drops
   * those of segments it does not own and, for each segment it owns, takes the cluster's copy in
   * their place (state transfer), so a key removed while it was away does not come back. The store
   * becomes the clustered cache's and is closed with it; nothing else may write to it. {@link
   * #maximumMemory} still gives the bound state transfer plans against, and should be the store's.
   * Not with {@link #storage}, {@link #expireAfterWrite}, {@link #removalListener} or {@link
   * #dictionary}, which configure a store this builder builds.
   *
   * @param store a store of encoded keys and values, bytes codecs
   * @param journal told of every change to the store
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> localStore(Cache<byte[], byte[]> store, StoreJournal journal) {
    this.localStore = Objects.requireNonNull(store, "store");
    this.journal = Objects.requireNonNull(journal, "journal");
    return this;
  }

  /**
   * Counts the values this member's store takes, by any path (a write it applies as primary or as
   * backup, whichever member took the call; an entry state transfer brings), that {@code counted}
   * accepts: {@link ClusteredCache#countedValuesStored()}. A cheap signal that values of interest
   * may have arrived here since a given moment (the server's expiry sweep counts values with an
   * expiry, to stay idle while none arrive). The predicate runs on every such store, under the
   * key's segment lock, on the encoded value (with an expiry stamp when {@link #expireAfterWrite}
   * is set): it must be fast, thread-safe and must not block.
   *
   * @param counted which encoded values to count
   * @return this builder
   */
  public ClusteredCacheBuilder<K, V> countStoredValues(Predicate<byte[]> counted) {
    this.countedValues = Objects.requireNonNull(counted, "counted");
    return this;
  }

  /**
   * Builds the local store and joins the cluster; returns once this member is in a view (its state
   * transfer continues in the background: see {@link ClusteredCache#awaitRebalanced}). The same as
   * {@link #buildUnjoined} then {@link ClusteredCache#join}.
   *
   * @return the clustered cache
   * @throws ClusterException if the cluster cannot be joined
   * @throws IllegalArgumentException if a near cache is asked for outside distributed mode, or the
   *     dictionary is not empty
   */
  public ClusteredCache<K, V> build() {
    ClusteredCache<K, V> cache = buildUnjoined();
    cache.join();
    return cache;
  }

  /**
   * Builds this member's side of the cluster without joining it: nothing is sent or received, and
   * the cache refuses to be used until {@link ClusteredCache#join} (see there for what works
   * before). A {@link #localStore} and its journal are neither read nor written until then, so the
   * caller may fill the store from its own record in between (a durable server answers its clients
   * that it is loading meanwhile); the journal's {@link StoreJournal#recordedEpochs} is read when
   * it joins.
   *
   * @return the clustered cache, not joined
   * @throws ClusterException if the cluster's stack cannot be read
   * @throws IllegalArgumentException if a near cache is asked for outside distributed mode, or the
   *     dictionary is not empty
   */
  public ClusteredCache<K, V> buildUnjoined() {
    if (nearEntries > 0 && cluster.mode() != ClusterMode.DISTRIBUTED) {
      throw new IllegalArgumentException(
          "a near cache needs DISTRIBUTED mode, not " + cluster.mode());
    }
    if (dictionary != null && dictionary.size() != 0) {
      throw new IllegalArgumentException(
          "a clustered cache's dictionary must be empty when the"
              + " cache is built (it holds "
              + dictionary.size()
              + " values); the cluster fills it");
    }
    if (localStore != null
        && (storage != null
            || expireAfterWrite != null
            || listener != null
            || dictionary != null)) {
      throw new IllegalArgumentException(
          "a given local store cannot take storage, expireAfterWrite, a removal listener or a"
              + " dictionary: they configure a store the builder builds");
    }
    CacheBuilder<byte[], byte[]> local = Cache.builder(Codecs.bytes(), Codecs.bytes());
    if (maximumMemory > 0) {
      local.maximumMemory(maximumMemory);
    } else {
      local.unbounded();
    }
    if (storage != null) {
      local.storage(storage);
    }
    return ClusteredLarderCache.create(
        keyCodec,
        valueCodec,
        local,
        maximumMemory > 0 ? maximumMemory : Long.MAX_VALUE,
        cluster,
        new ClusteredLarderCache.Options<>(
            loader,
            listener,
            executor,
            expireAfterWrite,
            clock,
            nearEntries,
            dictionary,
            localStore,
            journal,
            countedValues));
  }
}
