package dev.larder.cluster.internal;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.CacheLoader;
import dev.larder.CacheLoadingException;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.RemovalCause;
import dev.larder.RemovalListener;
import dev.larder.SnapshotMapView;
import dev.larder.cluster.ClusterConfig;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusterTimeoutException;
import dev.larder.cluster.ClusteredCache;
import dev.larder.cluster.MemberMessages;
import dev.larder.cluster.RebalanceStats;
import dev.larder.cluster.StoreJournal;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.CodecException;
import dev.larder.codec.ValueDictionary;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * The {@link ClusteredCache}: encodes at the API edge, runs the protocol of {@link ClusterEngine}
 * on bytes, decodes results. Thread-safe.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class ClusteredLarderCache<K, V> implements ClusteredCache<K, V> {

  private static final System.Logger LOG = System.getLogger(ClusteredLarderCache.class.getName());

  /**
   * The settings of a clustered cache beyond its store and its cluster.
   *
   * @param loader loads a missing key on the calling member, or null
   * @param listener told of removals (see docs/design/cluster.md for which member), or null
   * @param executor runs the listener
   * @param expireAfterWrite how long an entry lives after its last write, or null
   * @param clock the wall clock expiry deadlines are stamped and checked with
   * @param nearEntries the near cache's entry bound (distributed mode), 0 for none
   * @param dictionary the dictionary the value codec substitutes through, or null
   * @param localStore this member's store, built and possibly filled by the caller; or null to
   *     build one from the local builder
   * @param journal told of every change to the local store, or null
   * @param <K> the key type
   * @param <V> the value type
   */
  public record Options<K, V>(
      CacheLoader<? super K, V> loader,
      RemovalListener<? super K, ? super V> listener,
      Executor executor,
      Duration expireAfterWrite,
      InstantSource clock,
      long nearEntries,
      ValueDictionary dictionary,
      Cache<byte[], byte[]> localStore,
      StoreJournal journal,
      java.util.function.Predicate<byte[]> countedValues) {}

  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;
  private final ClusterEngine engine;
  private final ClusterConfig config;
  private final CacheLoader<? super K, V> loader;
  private final ConcurrentMap<K, CompletableFuture<V>> loading = new ConcurrentHashMap<>();
  private final LongAdder loadSuccesses = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private volatile ConcurrentMap<K, V> mapView;

  private ClusteredLarderCache(
      Codec<K> keyCodec,
      Codec<V> valueCodec,
      ClusterEngine engine,
      ClusterConfig config,
      CacheLoader<? super K, V> loader) {
    this.keyCodec = keyCodec;
    this.valueCodec = valueCodec;
    this.engine = engine;
    this.config = config;
    this.loader = loader;
  }

  /**
   * Builds this member's side of the cluster without joining it (see {@link #join}).
   *
   * @param keyCodec the key codec
   * @param valueCodec the value codec
   * @param local the settings of the local store of encoded entries (bound, storage); this method
   *     adds expiry, the removal hook and statistics, and the cache owns the store
   * @param memoryBound the store's bound, or Long.MAX_VALUE
   * @param config the cluster settings
   * @param options loader, listener, expiry, near cache
   * @param <K> the key type
   * @param <V> the value type
   * @return the cache, not joined
   */
  public static <K, V> ClusteredLarderCache<K, V> create(
      Codec<K> keyCodec,
      Codec<V> valueCodec,
      CacheBuilder<byte[], byte[]> local,
      long memoryBound,
      ClusterConfig config,
      Options<K, V> options) {
    AtomicReference<ClusterEngine> engineRef = new AtomicReference<>();
    EngineHooks.Removals removals = null;
    if (options.listener() != null) {
      RemovalListener<? super K, ? super V> listener = options.listener();
      Executor executor = options.executor();
      removals =
          (k, v, cause) ->
              executor.execute(() -> notify(listener, keyCodec, valueCodec, k, v, cause));
      local.removalListener(
          (k, v, cause) -> {
            ClusterEngine e = engineRef.get();
            if (e != null) {
              e.onLocalRemoval(k, v, cause);
            }
          });
    }
    long ttlMillis = 0;
    if (options.expireAfterWrite() != null) {
      ttlMillis = Math.max(1, options.expireAfterWrite().toMillis());
      InstantSource clock = options.clock();
      // The store reclaims entries by the same clock, never before the stamped deadline: it
      // starts counting when it stores the entry, after the primary stamped it.
      local
          .expireAfterWrite(Duration.ofMillis(ttlMillis))
          .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()));
    }
    if (options.dictionary() != null) {
      // the store counts the dictionary in memoryUsed and sets its maximum aside in its bound
      local.dictionary(options.dictionary());
    }
    Cache<byte[], byte[]> store =
        options.localStore() != null ? options.localStore() : local.recordStats().build();
    try {
      AtomicReference<ClusteredLarderCache<K, V>> cacheRef = new AtomicReference<>();
      BiPredicate<byte[], byte[]> same =
          valueCodec.deterministic()
              ? Arrays::equals
              : (a, b) ->
                  Arrays.equals(a, b)
                      || Objects.equals(cacheRef.get().decode(a), cacheRef.get().decode(b));
      ClusterEngine engine =
          ClusterEngine.create(
              config,
              store,
              memoryBound,
              new EngineHooks(
                  ttlMillis,
                  options.clock(),
                  removals,
                  options.nearEntries(),
                  options.dictionary(),
                  same,
                  options.journal(),
                  options.countedValues()));
      engineRef.set(engine);
      ClusteredLarderCache<K, V> cache =
          new ClusteredLarderCache<>(keyCodec, valueCodec, engine, config, options.loader());
      cacheRef.set(cache);
      return cache;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static <K, V> void notify(
      RemovalListener<? super K, ? super V> listener,
      Codec<K> keyCodec,
      Codec<V> valueCodec,
      byte[] key,
      byte[] value,
      RemovalCause cause) {
    try {
      listener.onRemoval(
          keyCodec.decodeLast(new ByteSource(key)),
          valueCodec.decodeLast(new ByteSource(value)),
          cause);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a removal listener threw", e);
    }
  }

  private byte[] key(K key) {
    Objects.requireNonNull(key, "key");
    ByteSink sink = new ByteSink();
    keyCodec.encodeLast(key, sink);
    return sink.toByteArray();
  }

  /**
   * Encodes a value. With a replicated dictionary, adding a value to it may find this member behind
   * the cluster's (the coordinator gave the id to another value): the additions it lacks are
   * applied and the value encoded again, until the cluster timeout.
   */
  private byte[] value(V value) {
    Objects.requireNonNull(value, "value");
    long deadline = 0;
    while (true) {
      try {
        ByteSink sink = new ByteSink();
        valueCodec.encodeLast(value, sink);
        return sink.toByteArray();
      } catch (RuntimeException e) {
        DictionarySync.Behind behind = behind(e);
        DictionarySync sync = engine.dictionarySync();
        if (behind == null || sync == null) {
          throw e;
        }
        if (deadline == 0) {
          deadline = engine.deadline();
        } else if (System.nanoTime() > deadline) {
          throw new ClusterException(
              "could not add a value to the cluster's dictionary within "
                  + config.timeout()
                  + ": "
                  + behind.getMessage(),
              e);
        }
        catchUp(sync, behind);
      }
    }
  }

  private static DictionarySync.Behind behind(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof DictionarySync.Behind b) {
        return b;
      }
    }
    return null;
  }

  private static void catchUp(DictionarySync sync, DictionarySync.Behind behind) {
    try {
      if (!behind.missing.isEmpty()) {
        sync.replay(behind.missing);
        return;
      }
    } catch (IllegalArgumentException gap) {
      // fall through to a full catch-up
    }
    if (!sync.catchUp()) {
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ClusterException("interrupted", ie);
    }
  }

  /**
   * Decodes a value. With a replicated dictionary, bytes written on another member may use an id
   * whose addition has not reached this member yet: it asks the coordinator for what it lacks and
   * decodes again (a bounded number of times).
   */
  private V decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    for (int attempt = 0; ; attempt++) {
      try {
        return valueCodec.decodeLast(new ByteSource(bytes));
      } catch (CodecException e) {
        DictionarySync sync = engine.dictionarySync();
        if (sync == null || attempt >= 50) {
          throw e;
        }
        if (attempt == 3) {
          sync.catchUpFromAnyone();
        } else if (!sync.catchUp() || attempt > 0) {
          pause();
        }
      }
    }
  }

  K decodeKey(byte[] bytes) {
    return keyCodec.decodeLast(new ByteSource(bytes));
  }

  V decodeValue(byte[] bytes) {
    return decode(bytes);
  }

  private static boolean isTrue(byte[] b) {
    return b != null && b.length == 1 && b[0] == 1;
  }

  // ---------------------------------------------------------------- reads

  /**
   * Without a loader, the same as {@link #getIfPresent}. With one, a miss runs the loader on this
   * member (once per key at a time on this member; other members may load the same key
   * concurrently) and stores the result with a put-if-absent on the key's primary, so a loaded
   * value is replicated and owned like a put; if another writer stored a value first, that value is
   * returned instead and the loaded one is dropped.
   */
  @Override
  public V get(K key) {
    V v = getIfPresent(key);
    if (v != null || loader == null) {
      return v;
    }
    return load(key);
  }

  private V load(K key) {
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> running = loading.putIfAbsent(key, mine);
    if (running != null) {
      try {
        return running.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
    }
    try {
      V loaded;
      try {
        loaded = loader.load(key);
      } catch (RuntimeException e) {
        throw e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CacheLoadingException("interrupted while loading " + key, e);
      } catch (Exception e) {
        throw new CacheLoadingException("loading " + key + " failed: " + e, e);
      }
      V result = null;
      if (loaded != null) {
        V previous = putIfAbsent(key, loaded);
        result = previous != null ? previous : loaded;
      }
      loadSuccesses.increment();
      mine.complete(result);
      return result;
    } catch (RuntimeException e) {
      loadFailures.increment();
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(key, mine);
    }
  }

  @Override
  public V getIfPresent(K key) {
    V v = decode(engine.get(key(key)));
    (v == null ? misses : hits).increment();
    return v;
  }

  /**
   * Hands {@code reader} a read-only view of a copy of the value's encoding: the replicated store
   * returns bytes it no longer holds, so the view stays valid after the call.
   */
  @Override
  public <R> R read(K key, Function<? super java.nio.ByteBuffer, ? extends R> reader) {
    Objects.requireNonNull(reader, "reader");
    byte[] bytes = engine.get(key(key));
    (bytes == null ? misses : hits).increment();
    return bytes == null ? null : reader.apply(java.nio.ByteBuffer.wrap(bytes).asReadOnlyBuffer());
  }

  /**
   * Returns the value, or computes it on this member and stores it unless another writer stored one
   * first (then that one is returned). Concurrent callers on different members may each run the
   * function; one value wins everywhere.
   */
  @Override
  public V get(K key, Function<? super K, ? extends V> mappingFunction) {
    Objects.requireNonNull(mappingFunction, "mappingFunction");
    V v = getIfPresent(key);
    if (v != null) {
      return v;
    }
    V computed = mappingFunction.apply(key);
    if (computed == null) {
      return null;
    }
    V previous = putIfAbsent(key, computed);
    return previous != null ? previous : computed;
  }

  @Override
  public Map<K, V> getAll(Iterable<? extends K> keys) {
    Objects.requireNonNull(keys, "keys");
    Map<K, V> result = new LinkedHashMap<>();
    for (K k : keys) {
      V v = get(k);
      if (v != null) {
        result.put(k, v);
      }
    }
    return java.util.Collections.unmodifiableMap(result);
  }

  @Override
  public boolean containsKey(K key) {
    return engine.get(key(key)) != null;
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void put(K key, V value) {
    byte[] k = key(key);
    engine.write(Op.PUT, k, value(value), null, true);
    puts.increment();
  }

  @Override
  public CompletionStage<Void> putAsync(K key, V value) {
    CompletableFuture<Void> done = engine.putAsync(key(key), value(value));
    puts.increment();
    return done;
  }

  @Override
  public void holdBackups() {
    engine.holdBackups();
  }

  @Override
  public void sendHeldBackups() {
    engine.sendHeldBackups();
  }

  @Override
  public long countedValuesStored() {
    return engine.countedValuesStored();
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    Objects.requireNonNull(map, "map");
    map.forEach(this::put);
  }

  @Override
  public V putIfAbsent(K key, V value) {
    byte[] k = key(key);
    V previous = decode(engine.write(Op.PUT_IF_ABSENT, k, value(value), null, false));
    if (previous == null) {
      puts.increment();
    }
    return previous;
  }

  @Override
  public V replace(K key, V value) {
    byte[] k = key(key);
    V previous = decode(engine.write(Op.REPLACE, k, value(value), null, false));
    if (previous != null) {
      puts.increment();
    }
    return previous;
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    byte[] k = key(key);
    boolean done = isTrue(engine.write(Op.REPLACE_IF, k, value(newValue), value(oldValue), false));
    if (done) {
      puts.increment();
    }
    return done;
  }

  @Override
  public V remove(K key) {
    V previous = decode(engine.write(Op.REMOVE, key(key), null, null, false));
    if (previous != null) {
      removals.increment();
    }
    return previous;
  }

  @Override
  public boolean remove(K key, V value) {
    byte[] k = key(key);
    boolean done = isTrue(engine.write(Op.REMOVE_IF, k, null, value(value), false));
    if (done) {
      removals.increment();
    }
    return done;
  }

  @Override
  public void invalidate(K key) {
    engine.write(Op.REMOVE, key(key), null, null, true);
  }

  @Override
  public void invalidateAll() {
    engine.clear();
  }

  @Override
  public void invalidateAll(Iterable<? extends K> keys) {
    Objects.requireNonNull(keys, "keys");
    for (K k : keys) {
      invalidate(k);
    }
  }

  /**
   * Computes on this member and applies the result with a compare-and-set on the key's primary,
   * retrying with the new current value if another write came first; the function may run more than
   * once.
   *
   * @throws ClusterTimeoutException if no attempt succeeds within the cluster timeout
   */
  @Override
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    byte[] k = key(key);
    long deadline = engine.deadline();
    while (true) {
      byte[] currentBytes = engine.get(k);
      V current = decode(currentBytes);
      V next = remappingFunction.apply(key, current);
      if (applyComputed(k, currentBytes, next)) {
        return next;
      }
      if (System.nanoTime() > deadline) {
        throw new ClusterTimeoutException("compute (contended)", List.of());
      }
    }
  }

  private boolean applyComputed(byte[] k, byte[] current, V next) {
    if (current == null) {
      return next == null
          || (engine.write(Op.PUT_IF_ABSENT, k, value(next), null, false) == null && countPut());
    }
    if (next == null) {
      boolean done = isTrue(engine.write(Op.REMOVE_IF, k, null, current, false));
      if (done) {
        removals.increment();
      }
      return done;
    }
    return isTrue(engine.write(Op.REPLACE_IF, k, value(next), current, false)) && countPut();
  }

  private boolean countPut() {
    puts.increment();
    return true;
  }

  // ---------------------------------------------------------------- whole cache

  /** The number of entries in the whole cluster, each counted once (gathered from every member). */
  @Override
  public long estimatedSize() {
    return engine.count();
  }

  /** This member's store: bytes reserved for its own entries and its backups. */
  @Override
  public long memoryUsed() {
    return engine.local().memoryUsed();
  }

  /** This member's store's byte bound. */
  @Override
  public OptionalLong maximumMemory() {
    return engine.local().maximumMemory();
  }

  /** This member's store's entry bound. */
  @Override
  public OptionalLong maximumEntries() {
    return engine.local().maximumEntries();
  }

  /**
   * The value dictionary given to the builder, kept identical on every member (see {@link
   * dev.larder.cluster.ClusteredCacheBuilder#dictionary}); empty without one.
   */
  @Override
  public Optional<ValueDictionary> dictionary() {
    return engine.local().dictionary();
  }

  /** Clustered caches always count their calls (see {@link #stats()}). */
  @Override
  public boolean recordsStats() {
    return true;
  }

  /**
   * This member's counts of calls made on it (evictions are its store's); latencies are not
   * recorded on clustered caches.
   */
  @Override
  public CacheStats stats() {
    return new CacheStats(
        hits.sum(),
        misses.sum(),
        loadSuccesses.sum(),
        loadFailures.sum(),
        engine.local().stats().evictionCount(),
        0,
        puts.sum(),
        removals.sum(),
        LatencySummary.EMPTY,
        LatencySummary.EMPTY,
        LatencySummary.EMPTY);
  }

  @Override
  public void cleanUp() {
    engine.local().cleanUp();
  }

  @Override
  public ConcurrentMap<K, V> asMap() {
    ConcurrentMap<K, V> view = mapView;
    if (view == null) {
      view = new SnapshotMapView<>(this, this::entries);
      mapView = view;
    }
    return view;
  }

  /** Returns every entry of the cluster, decoded: a snapshot gathered from every member. */
  private List<Map.Entry<K, V>> entries() {
    List<byte[]> encoded = engine.entries();
    List<Map.Entry<K, V>> entries = new ArrayList<>(encoded.size() / 2);
    for (int i = 0; i + 1 < encoded.size(); i += 2) {
      entries.add(Map.entry(decodeKey(encoded.get(i)), decodeValue(encoded.get(i + 1))));
    }
    return entries;
  }

  @Override
  public void join() {
    engine.join();
  }

  @Override
  public void close() {
    engine.close();
  }

  // ---------------------------------------------------------------- cluster

  @Override
  public String nodeName() {
    return engine.name();
  }

  @Override
  public List<String> members() {
    return engine.members();
  }

  @Override
  public ClusterConfig clusterConfig() {
    return config;
  }

  @Override
  public boolean isLocalOwner(K key) {
    return engine.ownsKey(key(key));
  }

  @Override
  public boolean isLocalPrimary(K key) {
    return engine.isPrimary(key(key));
  }

  @Override
  public boolean available() {
    return engine.available();
  }

  @Override
  public List<String> stableMembers() {
    return engine.stableMembers();
  }

  @Override
  public List<String> segmentOwners(int segment) {
    if (segment < 0 || segment >= config.segments()) {
      throw new IllegalArgumentException(
          "segment " + segment + " out of [0, " + config.segments() + ")");
    }
    return engine.segmentOwners(segment);
  }

  @Override
  public Map<String, String> memberAttributes(String member) {
    return engine.memberAttributes(Objects.requireNonNull(member, "member"));
  }

  @Override
  public void onMessages(MemberMessages receiver) {
    engine.onMessages(receiver);
  }

  @Override
  public void broadcast(byte[] payload) {
    engine.broadcast(payload, false);
  }

  @Override
  public void broadcastAndWait(byte[] payload) {
    engine.broadcast(payload, true);
  }

  @Override
  public java.util.Iterator<Map.Entry<K, V>> localEntries() {
    java.util.Iterator<Map.Entry<byte[], byte[]>> stored = engine.localEntries();
    return new java.util.Iterator<>() {
      @Override
      public boolean hasNext() {
        return stored.hasNext();
      }

      @Override
      public Map.Entry<K, V> next() {
        Map.Entry<byte[], byte[]> e = stored.next();
        return Map.entry(decodeKey(e.getKey()), decodeValue(e.getValue()));
      }
    };
  }

  @Override
  public int ownedSegments() {
    return engine.ownedSegments();
  }

  @Override
  public long localEntryCount() {
    return engine.local().estimatedSize();
  }

  @Override
  public RebalanceStats rebalanceStats() {
    return engine.rebalanceStats();
  }

  @Override
  public boolean awaitRebalanced(Duration timeout) {
    return engine.awaitRebalanced(timeout.toNanos());
  }

  @Override
  public long mergesLost() {
    return engine.mergesLost();
  }

  @Override
  public List<Integer> waitingSegments() {
    return engine.waitingSegments();
  }

  @Override
  public List<Integer> abandonWaitingSegments() {
    return engine.abandonWaitingSegments();
  }

  @Override
  public dev.larder.cluster.NearCacheStats nearStats() {
    return engine.nearStats();
  }

  @Override
  public long asyncWritesDropped() {
    return engine.asyncDropped();
  }

  /** Returns the engine (tests reach the JGroups channel through it). */
  public ClusterEngine engine() {
    return engine;
  }

  @Override
  public String toString() {
    return "ClusteredCache[" + nodeName() + ", " + config.mode() + ", " + members() + "]";
  }
}
