package dev.larder.jcache.internal;

import dev.larder.Ticker;
import dev.larder.codec.Codec;
import dev.larder.jcache.LarderConfiguration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CompletionListener;
import javax.cache.management.CacheStatisticsMXBean;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import javax.management.ObjectName;

/**
 * A JCache {@link Cache} over an {@link EntryStore}.
 *
 * <p>Implementation notes. Every operation on a key runs under that key's stripe of {@link
 * KeyLocks}: it reads the entry, treats an expired one as absent (removing it and reporting
 * EXPIRED), calls the writer, writes the store, asks the expiry policy, counts statistics and calls
 * synchronous listeners, all before releasing the stripe. That makes each single-key operation
 * atomic and keeps each key's events in order, at the cost of holding a stripe during writer and
 * listener calls. Reads are the exception: one that finds a live entry takes no lock at all
 * (Larder's store reads are lock-free) unless the expiry policy moves the entry's expiry time, and
 * a read-through miss runs its loader outside the lock, once per key ({@link SingleFlight}), so
 * that a slow loader never holds a stripe. A write to the key while its loader runs (put, remove,
 * replace, invoke, removeAll, clear) marks the load superseded under the stripe, and the load,
 * which stores under the stripe too, then returns what it read without storing it: a removal made
 * after the data behind the cache changed is not undone by a load that read before the change.
 *
 * <p>Expiry is per entry: the {@link ExpiryPolicy} may answer differently for each write, so the
 * expiry time is stored with the value ({@link Expirable}, {@link ExpirableCodec}) and checked on
 * every access; an expired entry is removed when an operation meets it. Expired entries that are
 * never met again stay in the store until it evicts them (a bounded store) or the cache is cleared;
 * they count against the bound.
 *
 * <p>Statistics follow the reference implementation's definitions, which the TCK checks exactly.
 *
 * @param <K> key type
 * @param <V> value type
 */
// "try": key locks are held by try-with-resources whose resource the body never names.
@SuppressWarnings("try")
public final class LarderJCache<K, V> implements Cache<K, V> {

  private final LarderCacheManager manager;
  private final String name;
  private final LarderConfiguration<K, V> configuration;
  private final EntryTypes types;
  private final ExpiringEntries<K, V> entries;
  private final LoaderWriter<K, V> io;
  private final StatisticsRecorder stats;
  private final Listeners<K, V> listeners;
  private final KeyLocks locks = new KeyLocks();
  private final SingleFlight<K, V> loads = new SingleFlight<>();
  private final Executor executor;
  private volatile boolean closed;

  private LarderJCache(
      LarderCacheManager manager,
      String name,
      LarderConfiguration<K, V> configuration,
      EntryStore<K, V> store,
      StatisticsRecorder stats,
      Executor executor) {
    this.manager = manager;
    this.name = name;
    this.configuration = configuration;
    this.types = EntryTypes.of(name, configuration);
    this.stats = stats;
    this.executor = executor;
    this.listeners = new Listeners<>(executor);
    this.entries =
        new ExpiringEntries<>(
            this,
            store,
            new ExpiryTimes(configuration.getExpiryPolicyFactory().create()),
            new ExpiryClock(Ticker.system()));
    CacheLoader<K, V> loader =
        configuration.getCacheLoaderFactory() == null
            ? null
            : configuration.getCacheLoaderFactory().create();
    CacheWriter<K, V> writer =
        configuration.isWriteThrough() && configuration.getCacheWriterFactory() != null
            ? narrow(configuration.getCacheWriterFactory().create())
            : null;
    this.io = new LoaderWriter<>(loader, configuration.isReadThrough(), writer);
  }

  /** A writer of supertypes accepts our keys and values; viewing it as one of K, V is safe. */
  @SuppressWarnings("unchecked")
  private static <K, V> CacheWriter<K, V> narrow(CacheWriter<? super K, ? super V> writer) {
    return (CacheWriter<K, V>) writer;
  }

  /**
   * Creates a cache, its store and its registrations, and registers its MXBeans if enabled.
   *
   * @param manager the owning manager
   * @param name the cache name
   * @param configuration a private copy of the configuration; the cache keeps and updates it
   * @param <K> key type
   * @param <V> value type
   * @return the cache
   */
  static <K, V> LarderJCache<K, V> create(
      LarderCacheManager manager, String name, LarderConfiguration<K, V> configuration) {
    StatisticsRecorder stats = new StatisticsRecorder();
    EntryStore<K, V> store = newStore(configuration, manager.getClassLoader(), stats);
    LarderJCache<K, V> cache =
        new LarderJCache<>(manager, name, configuration, store, stats, ForkJoinPool.commonPool());
    for (CacheEntryListenerConfiguration<K, V> listener :
        configuration.getCacheEntryListenerConfigurations()) {
      cache.listeners.register(listener);
    }
    cache.setStatisticsEnabled(configuration.isStatisticsEnabled());
    cache.setManagementEnabled(configuration.isManagementEnabled());
    return cache;
  }

  private static <K, V> EntryStore<K, V> newStore(
      LarderConfiguration<K, V> configuration, ClassLoader classLoader, StatisticsRecorder stats) {
    if (!configuration.isStoreByValue()) {
      return new ReferenceEntryStore<>();
    }
    Codec<K> keyCodec =
        CodecSelector.select(configuration.getKeyCodec(), configuration.getKeyType(), classLoader);
    Codec<V> valueCodec =
        CodecSelector.select(
            configuration.getValueCodec(), configuration.getValueType(), classLoader);
    return new ByteEntryStore<>(configuration, keyCodec, valueCodec, stats::eviction);
  }

  @Override
  public V get(K key) {
    requireOpen();
    requireKey(key);
    return read(key, true);
  }

  /**
   * Reads a key. A live entry is a hit served without the key lock (the lock is taken only if the
   * expiry policy moves its expiry time). A miss takes the lock to count it and report an expired
   * entry, then loads (read-through) outside the lock, once per key however many callers miss it
   * together ({@link SingleFlight}), and takes the lock again to store the loaded value unless
   * another writer stored one meanwhile. So a slow loader blocks only the callers of its own key.
   */
  private V read(K key, boolean mayLoad) {
    long start = stats.start();
    try {
      Expirable<V> entry = entries.peek(key);
      long now = entries.now();
      if (entry != null && !entry.isExpiredAt(now)) {
        stats.hit();
        touchIfPresent(key, now);
        return entry.value();
      }
      Expirable<V> live = readLocked(key);
      if (live != null) {
        return live.value();
      }
      if (!mayLoad || !io.isReadThrough()) {
        return null;
      }
      return loads.load(key, this::loadAndStore);
    } finally {
      stats.getTime(start);
    }
  }

  /**
   * The single-flight body of a read-through miss: loads unless a value arrived since the miss, and
   * stores what it loaded, so that callers joining the flight get the stored value.
   */
  private V loadAndStore(K key, BooleanSupplier superseded) {
    Expirable<V> arrived = entries.peek(key);
    if (arrived != null && !arrived.isExpiredAt(entries.now())) {
      return arrived.value();
    }
    V loaded = io.load(key);
    return loaded == null ? null : putLoaded(key, loaded, false, superseded);
  }

  /** Under the key's lock: the live entry (a hit, touched) or null (a miss). */
  private Expirable<V> readLocked(K key) {
    try (Locked locked = lock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      Expirable<V> entry = entries.live(key, now, events);
      if (entry != null) {
        stats.hit();
        entries.touch(key, entry, now);
      } else {
        stats.miss();
      }
      listeners.dispatch(events);
      return entry;
    }
  }

  @Override
  public Map<K, V> getAll(Set<? extends K> keys) {
    requireOpen();
    requireKeys(keys);
    Map<K, V> result = new LinkedHashMap<>();
    List<K> missing = new ArrayList<>();
    for (K key : keys) {
      V value = read(key, false);
      if (value != null) {
        result.put(key, value);
      } else {
        missing.add(key);
      }
    }
    if (io.isReadThrough() && !missing.isEmpty()) {
      loadMissing(missing, result);
    }
    return result;
  }

  private void loadMissing(List<K> missing, Map<K, V> result) {
    Map<K, V> loaded = io.loadAll(missing);
    for (K key : missing) {
      V value = loaded.get(key);
      if (value != null) {
        V stored = putLoaded(key, value, false);
        if (stored != null) {
          result.put(key, stored);
        }
      }
    }
  }

  @Override
  public boolean containsKey(K key) {
    requireOpen();
    requireKey(key);
    Expirable<V> entry = entries.peek(key);
    return entry != null && !entry.isExpiredAt(entries.now());
  }

  @Override
  public void loadAll(
      Set<? extends K> keys, boolean replaceExistingValues, CompletionListener completionListener) {
    requireOpen();
    requireKeys(keys);
    if (!io.hasLoader()) {
      if (completionListener != null) {
        completionListener.onCompletion();
      }
      return;
    }
    List<K> toLoad = List.copyOf(keys);
    executor.execute(() -> loadAllNow(toLoad, replaceExistingValues, completionListener));
  }

  private void loadAllNow(List<K> keys, boolean replace, CompletionListener listener) {
    try {
      List<K> toLoad = replace ? keys : keys.stream().filter(k -> !containsKey(k)).toList();
      Map<K, V> loaded = toLoad.isEmpty() ? Map.of() : io.loadAll(toLoad);
      for (Map.Entry<K, V> entry : loaded.entrySet()) {
        if (entry.getKey() != null && entry.getValue() != null) {
          putLoaded(entry.getKey(), entry.getValue(), replace);
        }
      }
      if (listener != null) {
        listener.onCompletion();
      }
    } catch (RuntimeException e) {
      if (listener != null) {
        listener.onException(e);
      }
    }
  }

  /**
   * Stores a loaded value: as a creation if the key is absent, as an update if present and {@code
   * replace}; neither the writer nor the put statistic is involved, as JCache specifies for loads.
   *
   * @return the value the cache now holds for the key, or null if the load stored nothing
   */
  private V putLoaded(K key, V value, boolean replace) {
    return putLoaded(key, value, replace, () -> false);
  }

  /**
   * As {@link #putLoaded(Object, Object, boolean)}, but stores nothing and returns the loaded value
   * if {@code superseded} says, under the key's lock, that a write to the key came while it loaded:
   * that write wins over a value read before it.
   */
  private V putLoaded(K key, V value, boolean replace, BooleanSupplier superseded) {
    try (Locked locked = lock(key)) {
      if (superseded.getAsBoolean()) {
        return value;
      }
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      Expirable<V> current = entries.live(key, now, events);
      V result;
      if (current == null) {
        result = entries.create(key, value, now, events) ? value : null;
      } else if (replace) {
        entries.update(key, value, current, now, events);
        result = value;
      } else {
        result = current.value();
      }
      listeners.dispatch(events);
      return result;
    }
  }

  @Override
  public void put(K key, V value) {
    requireOpen();
    requireEntry(key, value);
    long start = stats.start();
    boolean stored;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      Expirable<V> current = entries.live(key, now, events);
      io.write(key, value);
      stored = entries.createOrUpdate(key, value, current, now, events);
      listeners.dispatch(events);
    }
    if (stored) {
      stats.put(start);
    }
  }

  @Override
  public V getAndPut(K key, V value) {
    requireOpen();
    requireEntry(key, value);
    long start = stats.start();
    Expirable<V> current;
    boolean stored;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      current = entries.live(key, now, events);
      io.write(key, value);
      stored = entries.createOrUpdate(key, value, current, now, events);
      listeners.dispatch(events);
    }
    stats.get(current != null, start);
    if (stored) {
      stats.put(start);
    }
    return current == null ? null : current.value();
  }

  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    requireOpen();
    Objects.requireNonNull(map, "map");
    map.forEach(this::requireEntry);
    long start = stats.start();
    Map<K, V> toStore = new LinkedHashMap<>(map);
    CacheException failure = io.writeAll(toStore);
    for (Map.Entry<K, V> entry : toStore.entrySet()) {
      putOne(entry.getKey(), entry.getValue(), start);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void putOne(K key, V value, long start) {
    boolean stored;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      Expirable<V> current = entries.live(key, now, events);
      stored = entries.createOrUpdate(key, value, current, now, events);
      listeners.dispatch(events);
    }
    if (stored) {
      stats.put(start);
    }
  }

  @Override
  public boolean putIfAbsent(K key, V value) {
    requireOpen();
    requireEntry(key, value);
    long start = stats.start();
    boolean stored = false;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      if (entries.live(key, now, events) == null) {
        io.write(key, value);
        stored = entries.create(key, value, now, events);
      }
      listeners.dispatch(events);
    }
    if (stored) {
      stats.miss();
      stats.put(start);
    } else {
      stats.hit();
    }
    return stored;
  }

  @Override
  public boolean remove(K key) {
    requireOpen();
    requireKey(key);
    long start = stats.start();
    boolean removed;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      io.delete(key);
      Expirable<V> current = entries.live(key, entries.now(), events);
      removed = current != null;
      if (removed) {
        entries.remove(key, current, events);
      }
      listeners.dispatch(events);
    }
    if (removed) {
      stats.removal(start);
    }
    return removed;
  }

  @Override
  public boolean remove(K key, V oldValue) {
    requireOpen();
    requireKey(key);
    Objects.requireNonNull(oldValue, "oldValue");
    long start = stats.start();
    boolean removed =
        ifCurrentIs(
            key,
            oldValue,
            start,
            (current, now, events) -> {
              io.delete(key);
              entries.remove(key, current, events);
            });
    if (removed) {
      stats.removal(start);
    }
    return removed;
  }

  @Override
  public V getAndRemove(K key) {
    requireOpen();
    requireKey(key);
    long start = stats.start();
    Expirable<V> current;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      io.delete(key);
      current = entries.live(key, entries.now(), events);
      if (current != null) {
        entries.remove(key, current, events);
      }
      listeners.dispatch(events);
    }
    stats.get(current != null, start);
    if (current != null) {
      stats.removal(start);
    }
    return current == null ? null : current.value();
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    requireOpen();
    requireEntry(key, newValue);
    Objects.requireNonNull(oldValue, "oldValue");
    long start = stats.start();
    boolean replaced =
        ifCurrentIs(
            key,
            oldValue,
            start,
            (current, now, events) -> {
              io.write(key, newValue);
              entries.update(key, newValue, current, now, events);
            });
    if (replaced) {
      stats.put(start);
    }
    return replaced;
  }

  /**
   * The compare step shared by {@code remove(key, old)} and {@code replace(key, old, new)}: under
   * the key's write lock, applies {@code change} if the live value equals {@code expected}, and
   * otherwise counts the read as an access (JSR-107 treats the failed compare as one). Records the
   * read in the statistics either way; the caller records the write.
   */
  private boolean ifCurrentIs(K key, V expected, long start, Change<K, V> change) {
    Expirable<V> current;
    boolean changed = false;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      current = entries.live(key, now, events);
      if (current != null && entries.store().sameValue(current.value(), expected)) {
        change.apply(current, now, events);
        changed = true;
      } else if (current != null) {
        entries.touch(key, current, now);
      }
      listeners.dispatch(events);
    }
    stats.get(current != null, start);
    return changed;
  }

  /** What {@link #ifCurrentIs} does to an entry whose value matched. */
  @FunctionalInterface
  private interface Change<K, V> {
    void apply(Expirable<V> current, long now, EventBatch<K, V> events);
  }

  @Override
  public boolean replace(K key, V value) {
    return getAndReplaceEntry(key, value) != null;
  }

  @Override
  public V getAndReplace(K key, V value) {
    Expirable<V> previous = getAndReplaceEntry(key, value);
    return previous == null ? null : previous.value();
  }

  private Expirable<V> getAndReplaceEntry(K key, V value) {
    requireOpen();
    requireEntry(key, value);
    long start = stats.start();
    Expirable<V> current;
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      current = entries.live(key, now, events);
      if (current != null) {
        io.write(key, value);
        entries.update(key, value, current, now, events);
      }
      listeners.dispatch(events);
    }
    stats.get(current != null, start);
    if (current != null) {
      stats.put(start);
    }
    return current;
  }

  @Override
  public void removeAll(Set<? extends K> keys) {
    requireOpen();
    requireKeys(keys);
    removeKeys(new ArrayList<>(keys));
  }

  @Override
  public void removeAll() {
    requireOpen();
    loads.supersedeAll();
    List<K> keys = new ArrayList<>();
    entries.store().iterator().forEachRemaining(entry -> keys.add(entry.getKey()));
    removeKeys(keys);
  }

  private void removeKeys(List<K> keys) {
    long start = stats.start();
    CacheException failure = io.deleteAll(keys);
    for (K key : keys) {
      if (removeOne(key)) {
        stats.removal(start);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private boolean removeOne(K key) {
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      Expirable<V> current = entries.live(key, entries.now(), events);
      boolean removed = current != null;
      if (removed) {
        entries.remove(key, current, events);
      }
      listeners.dispatch(events);
      return removed;
    }
  }

  @Override
  public void clear() {
    requireOpen();
    loads.supersedeAll();
    entries.store().clear();
  }

  @Override
  public <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object... arguments) {
    requireOpen();
    requireKey(key);
    Objects.requireNonNull(processor, "entryProcessor");
    long start = stats.start();
    try (Locked locked = writeLock(key)) {
      EventBatch<K, V> events = new EventBatch<>();
      long now = entries.now();
      Expirable<V> current = entries.live(key, now, events);
      stats.get(current != null, start);
      ProcessorEntry<K, V> entry =
          new ProcessorEntry<>(
              key, current == null ? null : current.value(), io.isReadThrough() ? io::load : null);
      T result = process(processor, entry, arguments);
      applyProcessed(key, entry, current, now, events, stats.start());
      listeners.dispatch(events);
      return result;
    }
  }

  private static <K, V, T> T process(
      EntryProcessor<K, V, T> processor, ProcessorEntry<K, V> entry, Object... arguments) {
    try {
      return processor.process(entry, arguments);
    } catch (CacheException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new EntryProcessorException(e);
    }
  }

  private void applyProcessed(
      K key,
      ProcessorEntry<K, V> entry,
      Expirable<V> current,
      long now,
      EventBatch<K, V> events,
      long start) {
    switch (entry.operation()) {
      case NONE -> {}
      case ACCESS -> entries.touch(key, current, now);
      case LOAD -> entries.create(key, entry.value(), now, events);
      case CREATE -> {
        io.write(key, entry.value());
        if (entries.create(key, entry.value(), now, events)) {
          stats.put(start);
        }
      }
      case UPDATE -> {
        io.write(key, entry.value());
        entries.update(key, entry.value(), current, now, events);
        stats.put(start);
      }
      case REMOVE -> {
        io.delete(key);
        if (current != null) {
          entries.remove(key, current, events);
          stats.removal(start);
        }
      }
    }
  }

  @Override
  public <T> Map<K, EntryProcessorResult<T>> invokeAll(
      Set<? extends K> keys, EntryProcessor<K, V, T> processor, Object... arguments) {
    requireOpen();
    requireKeys(keys);
    Objects.requireNonNull(processor, "entryProcessor");
    Map<K, EntryProcessorResult<T>> results = new HashMap<>();
    for (K key : keys) {
      try {
        T result = invoke(key, processor, arguments);
        if (result != null) {
          results.put(key, new ProcessorResult<>(result, null));
        }
      } catch (RuntimeException e) {
        results.put(key, new ProcessorResult<>(null, e));
      }
    }
    return results;
  }

  @Override
  public Iterator<Cache.Entry<K, V>> iterator() {
    requireOpen();
    return new EntryIterator<>(this, entries.store().iterator());
  }

  /** Called by {@link EntryIterator} for each live entry it returns: a hit and an access. */
  void visited(K key, long now, long start) {
    touchIfPresent(key, now);
    stats.get(true, start);
  }

  long statisticsStart() {
    return stats.start();
  }

  long now() {
    return entries.now();
  }

  /** Moves a live entry's expiry time after a lock-free read, if the policy moves it. */
  private void touchIfPresent(K key, long now) {
    long at = entries.expiry().onAccess(now);
    if (at == ExpiryTimes.UNCHANGED) {
      return;
    }
    try (Locked locked = lock(key)) {
      entries.moveExpiry(key, at, now);
    }
  }

  void setStatisticsEnabled(boolean enabled) {
    configuration.setStatisticsEnabled(enabled);
    stats.setEnabled(enabled);
    ObjectName objectName = mbeanName(MBeanRegistrar.Kind.CacheStatistics);
    if (enabled) {
      MBeanRegistrar.register(objectName, this, stats.mxBean());
    } else {
      MBeanRegistrar.unregister(objectName, this);
    }
  }

  void setManagementEnabled(boolean enabled) {
    configuration.setManagementEnabled(enabled);
    ObjectName objectName = mbeanName(MBeanRegistrar.Kind.CacheConfiguration);
    if (enabled) {
      MBeanRegistrar.register(objectName, this, new JCacheConfigurationBean(configuration));
    } else {
      MBeanRegistrar.unregister(objectName, this);
    }
  }

  private ObjectName mbeanName(MBeanRegistrar.Kind kind) {
    return MBeanRegistrar.name(kind, manager.getURI().toString(), name);
  }

  /** Returns the statistics, also when they are not enabled (then they stay at zero). */
  public CacheStatisticsMXBean statistics() {
    return stats.mxBean();
  }

  @Override
  public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> listener) {
    requireOpen();
    Objects.requireNonNull(listener, "cacheEntryListenerConfiguration");
    synchronized (listeners) {
      listeners.register(listener);
      configuration.addCacheEntryListenerConfiguration(listener);
    }
  }

  @Override
  public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> listener) {
    requireOpen();
    Objects.requireNonNull(listener, "cacheEntryListenerConfiguration");
    synchronized (listeners) {
      if (listeners.deregister(listener)) {
        configuration.removeCacheEntryListenerConfiguration(listener);
      }
    }
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public CacheManager getCacheManager() {
    return manager;
  }

  @Override
  public <C extends Configuration<K, V>> C getConfiguration(Class<C> type) {
    if (type.isInstance(configuration)) {
      return type.cast(configuration);
    }
    throw new IllegalArgumentException("configuration is not a " + type.getName());
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    manager.release(this);
    MBeanRegistrar.unregister(mbeanName(MBeanRegistrar.Kind.CacheStatistics), this);
    MBeanRegistrar.unregister(mbeanName(MBeanRegistrar.Kind.CacheConfiguration), this);
    io.close();
    Closing.quietly(entries.expiry().policy());
    listeners.close();
    entries.store().close();
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isAssignableFrom(getClass())) {
      return type.cast(this);
    }
    T inner = entries.store().unwrap(type);
    if (inner != null) {
      return inner;
    }
    throw new IllegalArgumentException("cannot unwrap cache " + name + " to " + type.getName());
  }

  @Override
  public String toString() {
    return "LarderJCache[" + name + "]";
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("cache " + name + " is closed");
    }
  }

  private void requireKey(Object key) {
    Objects.requireNonNull(key, "key");
    types.checkKey(key);
  }

  private void requireKeys(Collection<?> keys) {
    Objects.requireNonNull(keys, "keys");
    for (Object key : keys) {
      Objects.requireNonNull(key, "keys contains null");
      types.checkKey(key);
    }
  }

  private void requireEntry(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    types.checkKey(key);
    types.checkValue(value);
    entries.store().checkStorable(key, value);
  }

  private Locked lock(K key) {
    ReentrantLock lock = locks.lockFor(key);
    lock.lock();
    return lock::unlock;
  }

  /** The key's lock for a write, which supersedes a read-through load of the key in flight. */
  private Locked writeLock(K key) {
    Locked locked = lock(key);
    loads.supersede(key);
    return locked;
  }

  /** A held key lock, released by try-with-resources. */
  @FunctionalInterface
  private interface Locked extends AutoCloseable {
    @Override
    void close();
  }
}
