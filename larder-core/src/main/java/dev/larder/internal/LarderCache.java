package dev.larder.internal;

import dev.larder.Cache;
import dev.larder.CacheLoadingException;
import dev.larder.CacheStats;
import dev.larder.RemovalListener;
import dev.larder.Storage;
import dev.larder.codec.ByteSink;
import dev.larder.codec.ByteSource;
import dev.larder.codec.Codec;
import dev.larder.codec.ValueDictionary;
import dev.larder.internal.bulk.BulkRestore;
import dev.larder.internal.bulk.BulkSnapshot;
import dev.larder.internal.bulk.EncodedEntries;
import dev.larder.internal.count.FirstByteCounts;
import dev.larder.internal.store.HotTable;
import dev.larder.internal.store.HotValue;
import dev.larder.internal.store.PutMode;
import dev.larder.internal.store.RemovedEntry;
import dev.larder.internal.store.RetainedSize;
import dev.larder.internal.store.Segment;
import dev.larder.internal.store.SnapshotScratch;
import dev.larder.internal.store.WriteResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The {@link Cache} implementation: encodes keys and values with the codecs, routes each key to a
 * {@link Segment} by its hash, runs loads once per key, records statistics and delivers removal
 * notifications.
 *
 * <p>Implementation notes. Encoding uses per-thread {@link ByteSink}s, one for keys and one for
 * values, so a read or write allocates nothing but the decoded result. No user code (codec, loader,
 * function, listener) runs under a segment lock. Single flight: a miss in a loading read registers
 * a {@link CompletableFuture} for the key's bytes; other readers of the same key wait on it, while
 * readers and writers of every other key never see it. A load that finds a value written meanwhile
 * keeps that value (it never overwrites a newer write); a write during a load marks it superseded
 * (see {@link #supersedeLoad}), so that it stores nothing and callers that come after the write
 * start a new load instead of joining it.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class LarderCache<K, V>
    implements Cache<K, V>, BulkRestore, BulkSnapshot, FirstByteCounts {

  /**
   * The raw-bytes codec. Its values are their own encoding: reads hand over the array the store
   * copied out (see {@link #decodeValue}), and writes give the caller's array to the store as it
   * is, which copies it into its page, instead of copying it into the scratch buffer first.
   */
  private static final Codec<byte[]> BYTES = dev.larder.codec.Codecs.bytes();

  private static final System.Logger LOG = System.getLogger(LarderCache.class.getName());

  private final CacheConfig<K, V> config;
  private final Codec<K> keyCodec;
  private final Codec<V> valueCodec;
  private final SegmentTable segments;

  /** The hot tier's entries by key object, or null if the cache has no tier. */
  private final HotTable hot;

  private final StatsRecorder stats;
  private final ConcurrentHashMap<KeyBytes, Flight<V>> flights = new ConcurrentHashMap<>();

  /**
   * Loads that may be in {@link #flights}: raised before a load registers, lowered after it leaves,
   * so that a write that reads zero knows no load can have read the data before its change. Not
   * {@code flights.isEmpty()}: that sums striped counters without a snapshot, and can read zero (or
   * less) while a flight is registered if another registers and leaves meanwhile, which let a write
   * skip marking a load that went on to store a stale value.
   */
  private final AtomicInteger loadsUnderWay = new AtomicInteger();

  private final Maintenance maintenance;
  private final SegmentRelease release;
  private volatile boolean closed;
  private volatile CacheMapView<K, V> mapView;
  private volatile CacheManagement management;

  /**
   * @param config validated settings from the builder
   */
  public LarderCache(CacheConfig<K, V> config) {
    this.config = config;
    this.keyCodec = config.keyCodec();
    this.valueCodec = config.valueCodec();
    this.segments = new SegmentTable(config);
    this.hot = segments.hotTable();
    this.stats = StatsRecorder.of(config.recordStats());
    this.maintenance = config.expires() ? Maintenance.schedule(this, config.executor()) : null;
    this.release = new SegmentRelease(this, segments, config.storage() == Storage.OFF_HEAP);
  }

  // ------------------------------------------------------------------ reads

  @Override
  public V get(K key) {
    if (config.loader() == null) {
      return getIfPresent(key);
    }
    return get(key, this::invokeLoader);
  }

  @Override
  @SuppressWarnings("unchecked")
  public V getIfPresent(K key) {
    Objects.requireNonNull(key, "key");
    checkOpen();
    long start = startTimer();
    HotTable tier = hot;
    if (tier != null) {
      V shared = (V) tier.get(key, now());
      if (shared != null) {
        stats.recordGet(true, elapsed(start));
        return shared;
      }
      V value = readAndOffer(key);
      stats.recordGet(value != null, elapsed(start));
      return value;
    }
    byte[] value = lookupKey(key, true, true);
    stats.recordGet(value != null, elapsed(start));
    return value == null ? null : decodeValue(value);
  }

  /**
   * A read from the compact store that offers the decoded value to the hot tier when the key's
   * segment says it is read often enough ({@link Segment#hotCandidate}); the offer keeps it only if
   * the entry still holds the bytes it was decoded from.
   */
  private V readAndOffer(K key) {
    long now = now();
    byte[] keyBytes = null;
    byte[] value;
    long hash;
    Segment segment;
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ByteSink sink = encodeKey(key, scratch);
      hash = Segment.hash(sink.array(), sink.size());
      segment = segmentFor(hash);
      value = segment.get(sink.array(), sink.size(), hash, now, true);
      if (value == null) {
        return null;
      }
      if (segment.hotCandidate(hash)) {
        keyBytes = sink.toByteArray();
      }
    } finally {
      scratch.giveBack();
    }
    V decoded = decodeValue(value);
    if (keyBytes != null) {
      long bytes = RetainedSize.of(key) + RetainedSize.of(decoded);
      segment.offerHot(keyBytes, keyBytes.length, hash, value, key, decoded, bytes, now);
    }
    return decoded;
  }

  @Override
  @SuppressWarnings({"unchecked", "ReferenceEquality"}) // ABSENT is the store's sentinel for a miss
  public <R> R read(K key, Function<? super java.nio.ByteBuffer, ? extends R> reader) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reader, "reader");
    checkOpen();
    long start = startTimer();
    Object result;
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ByteSink sink = encodeKey(key, scratch);
      long hash = Segment.hash(sink.array(), sink.size());
      result = segmentFor(hash).view(sink.array(), sink.size(), hash, now(), reader);
    } finally {
      scratch.giveBack();
    }
    boolean hit = result != Segment.ABSENT;
    stats.recordGet(hit, elapsed(start));
    return hit ? (R) result : null;
  }

  /**
   * Reads for iteration of the map views: not counted in the statistics and, as Guava and Caffeine
   * do, not an access (a job that walks every entry must neither keep entries alive past their
   * expire-after-access time nor make every entry look recently used to eviction).
   */
  V getIfPresentQuietly(K key) {
    checkOpen();
    byte[] value = lookupKey(key, true, false);
    return value == null ? null : decodeValue(value);
  }

  @Override
  public V get(K key, Function<? super K, ? extends V> mappingFunction) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(mappingFunction, "mappingFunction");
    V present = getIfPresent(key);
    if (present != null) {
      return present;
    }
    return load(key, new KeyBytes(encodedKeyCopy(key)), mappingFunction);
  }

  @Override
  public Map<K, V> getAll(Iterable<? extends K> keys) {
    Objects.requireNonNull(keys, "keys");
    checkOpen();
    Map<K, V> result = new LinkedHashMap<>();
    for (K key : keys) {
      V value = get(Objects.requireNonNull(key, "keys contains null"));
      if (value != null) {
        result.put(key, value);
      }
    }
    return Collections.unmodifiableMap(result);
  }

  @Override
  public boolean containsKey(K key) {
    Objects.requireNonNull(key, "key");
    checkOpen();
    return lookupKey(key, false, false) != null;
  }

  /**
   * @param access whether this read is an access (eviction, expire-after-access)
   */
  private byte[] lookup(byte[] key, int length, boolean copy, boolean access) {
    long hash = Segment.hash(key, length);
    Segment segment = segmentFor(hash);
    return access
        ? segment.get(key, length, hash, now(), copy)
        : segment.peek(key, length, hash, now(), copy);
  }

  // ------------------------------------------------------------------ loading

  private V invokeLoader(K key) {
    try {
      return config.loader().load(key);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CacheLoadingException("interrupted while loading " + key, e);
    } catch (Exception e) {
      throw new CacheLoadingException("loader failed for " + key, e);
    }
  }

  private V load(K key, KeyBytes keyBytes, Function<? super K, ? extends V> function) {
    Flight<V> mine = new Flight<>(Thread.currentThread());
    loadsUnderWay.incrementAndGet();
    try {
      return loadRegistered(key, keyBytes, function, mine);
    } finally {
      loadsUnderWay.decrementAndGet();
    }
  }

  private V loadRegistered(
      K key, KeyBytes keyBytes, Function<? super K, ? extends V> function, Flight<V> mine) {
    for (Flight<V> theirs; (theirs = flights.putIfAbsent(keyBytes, mine)) != null; ) {
      // A superseded load may have read data that a write since then was made to remove: a
      // caller arriving now must not share its value, so it takes the key over with a new load
      // (the old one's callers still get the old value; it is never stored). Its own loader
      // asking for the key again is still a recursive load.
      if (!theirs.superseded || theirs.owner == Thread.currentThread()) {
        return theirs.await();
      }
      if (flights.replace(keyBytes, theirs, mine)) {
        break;
      }
    }
    long start = startTimer();
    try {
      V value = loadOnce(key, keyBytes, function, mine);
      stats.recordLoad(value != null, elapsed(start));
      mine.future.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      stats.recordLoad(false, elapsed(start));
      mine.future.completeExceptionally(e);
      throw e;
    } finally {
      flights.remove(keyBytes, mine);
    }
  }

  /**
   * Tells a load of this key in flight, if any, that a write came after its loader began: the
   * loaded value may predate the change the write made (a database row updated, then the key
   * invalidated), so the load must not store it where the write left no value, and callers that
   * come later must not join it. Called twice by each write. Before the write takes the segment's
   * lock, so that the load's store, which asks under that lock, cannot follow the write (see {@link
   * Segment#putLoaded}). And after the write, so that a load registered while the write was under
   * way is marked too: it may have found the value the write then removed, and a caller arriving
   * after the write returned must not get that value from it. A load that registers after the
   * second call reads after the write, and may store and be joined.
   */
  private void supersedeLoad(byte[] key, int length) {
    if (loadsUnderWay.get() == 0) {
      return;
    }
    Flight<V> flight = flights.get(new KeyBytes(Arrays.copyOf(key, length)));
    if (flight != null) {
      flight.superseded = true;
    }
  }

  private V loadOnce(
      K key, KeyBytes keyBytes, Function<? super K, ? extends V> function, Flight<V> flight) {
    // A load that finished between our miss and our registration has already stored its value.
    byte[] stored = lookup(keyBytes.bytes, keyBytes.bytes.length, true, true);
    if (stored != null) {
      return decodeValue(stored);
    }
    V value = function.apply(key);
    if (value == null) {
      return null;
    }
    long hash = Segment.hash(keyBytes.bytes, keyBytes.bytes.length);
    WriteResult result;
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ValueBytes bytes = valueBytes(value, scratch);
      splitIfDue(keyBytes.bytes.length + bytes.length());
      result =
          segmentFor(hash)
              .putLoaded(
                  keyBytes.bytes,
                  keyBytes.bytes.length,
                  bytes.array(),
                  bytes.length(),
                  hash,
                  now(),
                  () -> flight.superseded);
    } finally {
      scratch.giveBack();
    }
    afterWrite(result);
    if (!result.applied()) {
      // Present: another writer's value, the newer one. Absent: a write came during the load,
      // so the loaded value (perhaps read before that write's change) is returned, not kept.
      return result.previous() != null ? decodeValue(result.previous()) : value;
    }
    stats.recordPut(0);
    return value;
  }

  // ------------------------------------------------------------------ writes

  @Override
  public void put(K key, V value) {
    write(key, value, PutMode.ALWAYS, null, false);
  }

  /**
   * Encodes every entry and refuses any that can never fit before it stores one, so that a null, a
   * codec's exception or an entry too large leaves the cache unchanged; the encoded entries are
   * held meanwhile. Then stores them one by one, as put does.
   */
  @Override
  public void putAll(Map<? extends K, ? extends V> map) {
    Objects.requireNonNull(map, "map");
    checkOpen();
    List<byte[]> encoded = new ArrayList<>(2 * map.size());
    for (Map.Entry<? extends K, ? extends V> entry : map.entrySet()) {
      byte[] key = encodedKeyCopy(Objects.requireNonNull(entry.getKey(), "map has a null key"));
      byte[] value =
          encodedValueCopy(Objects.requireNonNull(entry.getValue(), "map has a null value"));
      long hash = Segment.hash(key, key.length);
      segmentFor(hash).checkFits(key, key.length, value.length, hash, now());
      encoded.add(key);
      encoded.add(value);
    }
    for (int i = 0; i < encoded.size(); i += 2) {
      long start = startTimer();
      byte[] key = encoded.get(i);
      byte[] value = encoded.get(i + 1);
      WriteResult result = store(key, key.length, value, value.length, PutMode.ALWAYS, null, false);
      afterWrite(result);
      stats.recordPut(elapsed(start));
    }
  }

  /**
   * Walks the distinct segments of this moment, each lock-free ({@link Segment#snapshot}); one that
   * splits or rebuilds its index meanwhile is walked again from its successors or its new index.
   */
  @Override
  public void forEachEncoded(EncodedEntryVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    checkOpen();
    SnapshotScratch scratch = new SnapshotScratch();
    for (Segment segment : segments) {
      segment.snapshot(now(), scratch, visitor);
    }
  }

  /**
   * Hashes each key once, orders the entries by route (a stable counting sort: two entries of one
   * key keep their order) and hands each route's run to its segment, which stores new keys under
   * one hold of its lock ({@link Segment#restore}); an entry it leaves (a present key, no room
   * without evicting) is stored as a put stores it, and the segment takes the rest of the run.
   * Loads in flight are superseded by each key, before and after, as a put supersedes them.
   *
   * <p>Its loops over the entries are methods of their own ({@link #hashKeys}, {@link #routeOrder},
   * {@link Segment#restore}): a restore is compiled while a fresh process loads its data, and a
   * loop over a batch's entries here would have the JIT compile this method on the stack (and again
   * when it returns), each time with the segment's whole store path inlined into it, on the cores
   * that do the loading.
   */
  @Override
  public void restore(EncodedEntries entries) {
    Objects.requireNonNull(entries, "entries");
    checkOpen();
    int n = entries.size();
    if (n == 0) {
      return;
    }
    int routes = segments.routeCount();
    int[] starts = new int[routes + 1];
    long[] hashes = hashKeys(entries, routes, starts);
    // The first use makes the segments; then a first segment that the whole batch would take
    // past its split point splits before it (a batch never fills it past that point).
    segmentFor(hashes[0]);
    WriteResult split = segments.splitIfDue(entries.end(), n);
    if (split != null) {
      afterWrite(split);
    }
    int[] order = routeOrder(hashes, routes, starts);
    supersedeLoads(entries);
    long now = now();
    for (int r = 0; r < routes; r++) {
      for (int at = starts[r]; at < starts[r + 1]; ) {
        at = segmentFor(hashes[order[at]]).restore(entries, hashes, order, at, starts[r + 1], now);
        if (at < starts[r + 1]) {
          restoreByPut(entries, order[at++]);
        }
      }
    }
    supersedeLoads(entries);
  }

  /**
   * Returns the store hash of each entry's key, and counts the entries of each route {@code r} in
   * {@code starts[r + 1]}.
   */
  private static long[] hashKeys(EncodedEntries entries, int routes, int[] starts) {
    int n = entries.size();
    long[] hashes = new long[n];
    byte[] bytes = entries.bytes();
    for (int e = 0; e < n; e++) {
      long hash = Segment.hash(bytes, entries.keyOffset(e), entries.keyLength(e));
      hashes[e] = hash;
      starts[((int) hash & (routes - 1)) + 1]++;
    }
    return hashes;
  }

  /**
   * Turns {@code starts}' counts ({@link #hashKeys}) into where each route's run begins, and
   * returns the entries ordered by route, each route's in their batch order.
   */
  private static int[] routeOrder(long[] hashes, int routes, int[] starts) {
    for (int r = 0; r < routes; r++) {
      starts[r + 1] += starts[r];
    }
    int[] order = new int[hashes.length];
    int[] next = Arrays.copyOf(starts, routes);
    for (int e = 0; e < hashes.length; e++) {
      order[next[(int) hashes[e] & (routes - 1)]++] = e;
    }
    return order;
  }

  /** An entry {@link Segment#restore} left: stored as {@link #put} stores it, without stats. */
  private void restoreByPut(EncodedEntries entries, int e) {
    int from = entries.keyOffset(e);
    int keyLength = entries.keyLength(e);
    byte[] key = Arrays.copyOfRange(entries.bytes(), from, from + keyLength);
    byte[] value =
        Arrays.copyOfRange(
            entries.bytes(), from + keyLength, from + keyLength + entries.valueLength(e));
    afterWrite(store(key, keyLength, value, value.length, PutMode.ALWAYS, null, false));
  }

  /** {@link #supersedeLoad} of every key of the batch, if any load is in flight. */
  private void supersedeLoads(EncodedEntries entries) {
    if (loadsUnderWay.get() == 0) {
      return;
    }
    for (int e = 0; e < entries.size(); e++) {
      int from = entries.keyOffset(e);
      int length = entries.keyLength(e);
      supersedeLoad(Arrays.copyOfRange(entries.bytes(), from, from + length), length);
    }
  }

  /** Puts and returns the previous value, atomically; for {@link ConcurrentMap#put}. */
  V putAndGetPrevious(K key, V value) {
    Objects.requireNonNull(value, "value");
    return swap(key, value, false);
  }

  /**
   * A write that returns the value it replaces or removes. The old value is decoded before the
   * write, so that a value codec whose decode throws leaves the cache unchanged: this reads the
   * stored bytes (not an access: the write is what the policy hears of, as for a plain put or
   * remove), decodes them, and writes only if the entry still holds those bytes, reading again if
   * another write came between.
   *
   * @param value the new value, or null to remove
   * @param onlyIfPresent write nothing if the key is absent (replace)
   * @return the previous value, or null if there was none
   */
  private V swap(K key, V value, boolean onlyIfPresent) {
    Objects.requireNonNull(key, "key");
    checkOpen();
    long start = startTimer();
    StoredKey stored = storedKeyForWrite(key);
    for (; ; ) {
      byte[] current = stored.peek(now());
      if (current == null && onlyIfPresent) {
        return null;
      }
      V previous = current == null ? null : decodeValue(current);
      if (applyComputed(stored, current, value, start)) {
        return previous;
      }
    }
  }

  @Override
  public V putIfAbsent(K key, V value) {
    WriteResult result = write(key, value, PutMode.IF_ABSENT, null, true);
    return result.applied() || result.previous() == null ? null : decodeValue(result.previous());
  }

  @Override
  public V replace(K key, V value) {
    Objects.requireNonNull(value, "value");
    return swap(key, value, true);
  }

  @Override
  public boolean replace(K key, V oldValue, V newValue) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(oldValue, "oldValue");
    Objects.requireNonNull(newValue, "newValue");
    byte[] expected = encodedValueCopy(oldValue);
    return write(key, newValue, PutMode.IF_EQUALS, expected, false).applied()
        || (!valueCodec.deterministic() && writeIfEqual(key, oldValue, newValue));
  }

  /**
   * The conditional write for values whose bytes did not match: with a value codec that is not
   * deterministic (a plain set, a dictionary that has interned the value since it was stored), the
   * stored value may still equal the expected one, and ConcurrentMap's contract compares by equals.
   * So this decodes the stored value, compares, and writes against the very bytes it read, reading
   * again if another write came between. A deterministic codec needs none of it: different bytes
   * there mean unequal values.
   *
   * @param replacement the new value, or null to remove the entry
   */
  private boolean writeIfEqual(K key, V expected, V replacement) {
    long start = startTimer();
    StoredKey stored = storedKeyForWrite(key);
    for (; ; ) {
      byte[] current = stored.read(now());
      if (current == null || !expected.equals(decodeValue(current))) {
        return false;
      }
      if (applyComputed(stored, current, replacement, start)) {
        return true;
      }
    }
  }

  private WriteResult write(K key, V value, PutMode mode, byte[] expected, boolean wantOld) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    checkOpen();
    long start = startTimer();
    WriteResult result;
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ByteSink keySink = encodeKey(key, scratch);
      ValueBytes bytes = valueBytes(value, scratch);
      HotValue replacement = mode == PutMode.ALWAYS ? hotReplacement(key, value, bytes) : null;
      result =
          store(
              keySink.array(),
              keySink.size(),
              bytes.array(),
              bytes.length(),
              mode,
              expected,
              wantOld,
              replacement);
    } finally {
      scratch.giveBack();
    }
    afterWrite(result);
    if (result.applied()) {
      stats.recordPut(elapsed(start));
    }
    return result;
  }

  /**
   * The written value as the hot tier would hold it, if the key has a hot entry now (else the write
   * only removes whatever entry the key has by the time it holds the lock): the caller's own
   * instance where its class is one of the JDK's immutable value classes (nothing can change it),
   * else a fresh decoding of the written bytes, which no caller holds.
   */
  @SuppressWarnings("unchecked")
  private HotValue hotReplacement(K key, V value, ValueBytes bytes) {
    if (hot == null || !hot.contains(key)) {
      return null;
    }
    V shared =
        SharedInstances.isImmutable(value)
            ? value
            : valueCodec.decodeLast(new ByteSource(bytes.array(), 0, bytes.length()));
    return new HotValue(key, shared, RetainedSize.of(key) + RetainedSize.of(shared));
  }

  private WriteResult store(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      PutMode mode,
      byte[] expected,
      boolean wantOld) {
    return store(key, keyLength, value, valueLength, mode, expected, wantOld, null);
  }

  /** Writes encoded bytes to their segment, telling loads of the key (see supersedeLoad). */
  private WriteResult store(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      PutMode mode,
      byte[] expected,
      boolean wantOld,
      HotValue replacement) {
    supersedeLoad(key, keyLength);
    splitIfDue(keyLength + valueLength);
    long hash = Segment.hash(key, keyLength);
    WriteResult result =
        segmentFor(hash)
            .put(
                key,
                keyLength,
                value,
                valueLength,
                hash,
                mode,
                expected,
                wantOld,
                now(),
                replacement);
    supersedeLoad(key, keyLength);
    return result;
  }

  @Override
  public V remove(K key) {
    return swap(key, null, false);
  }

  @Override
  public boolean remove(K key, V value) {
    Objects.requireNonNull(value, "value");
    return removeEntry(key, encodedValueCopy(value)).applied()
        || (!valueCodec.deterministic() && writeIfEqual(key, value, null));
  }

  @Override
  public void invalidate(K key) {
    removeEntry(key, null);
  }

  private WriteResult removeEntry(K key, byte[] expected) {
    Objects.requireNonNull(key, "key");
    checkOpen();
    WriteResult result;
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ByteSink sink = encodeKey(key, scratch);
      supersedeLoad(sink.array(), sink.size());
      long hash = Segment.hash(sink.array(), sink.size());
      result = segmentFor(hash).remove(sink.array(), sink.size(), hash, expected, false, now());
      supersedeLoad(sink.array(), sink.size());
    } finally {
      scratch.giveBack();
    }
    afterWrite(result);
    if (result.applied()) {
      stats.recordRemoval();
    }
    return result;
  }

  @Override
  public void invalidateAll() {
    checkOpen();
    supersedeAllLoads();
    for (Segment segment : segments) {
      WriteResult result = segment.clear();
      afterWrite(result);
      stats.recordRemovals(result.cleared());
    }
    supersedeAllLoads();
  }

  /** {@link #supersedeLoad} for every load in flight: before and after a clear. */
  private void supersedeAllLoads() {
    for (Flight<V> flight : flights.values()) {
      flight.superseded = true;
    }
  }

  @Override
  public void invalidateAll(Iterable<? extends K> keys) {
    Objects.requireNonNull(keys, "keys");
    checkOpen();
    for (K key : keys) {
      invalidate(key);
    }
  }

  @Override
  public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(remappingFunction, "remappingFunction");
    checkOpen();
    long start = startTimer();
    StoredKey stored = storedKeyForWrite(key);
    for (; ; ) {
      byte[] current = stored.read(now());
      V computed = remappingFunction.apply(key, current == null ? null : decodeOwnCopy(current));
      if (applyComputed(stored, current, computed, start)) {
        return computed;
      }
    }
  }

  /**
   * A key's bytes and segment, for a loop that reads the value, decides, and writes against the
   * bytes it read (compute, and the equals path of conditional writes).
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record StoredKey(byte[] bytes, long hash, Segment segment) {
    /** Returns a copy of the current value's bytes, or null; an access. */
    byte[] read(long now) {
      return segment.get(bytes, bytes.length, hash, now, true);
    }

    /** Returns a copy of the current value's bytes, or null; not an access. */
    byte[] peek(long now) {
      return segment.peek(bytes, bytes.length, hash, now, true);
    }
  }

  /** Encodes the key and tells a load of it in flight that a write is coming. */
  private StoredKey storedKeyForWrite(K key) {
    byte[] bytes = encodedKeyCopy(key);
    supersedeLoad(bytes, bytes.length);
    long hash = Segment.hash(bytes, bytes.length);
    return new StoredKey(bytes, hash, segmentFor(hash));
  }

  /** Writes the computed value if the entry still holds {@code current}; false to retry. */
  private boolean applyComputed(StoredKey stored, byte[] current, V computed, long start) {
    byte[] key = stored.bytes();
    WriteResult result;
    if (computed == null) {
      if (current == null) {
        return staysAbsent(stored);
      }
      result = stored.segment().remove(key, key.length, stored.hash(), current, false, now());
    } else {
      PutMode mode = current == null ? PutMode.IF_ABSENT : PutMode.IF_EQUALS;
      ScratchSinks scratch = ScratchSinks.borrow();
      try {
        ValueBytes bytes = valueBytes(computed, scratch);
        splitIfDue(key.length + bytes.length());
        result =
            stored
                .segment()
                .put(
                    key,
                    key.length,
                    bytes.array(),
                    bytes.length(),
                    stored.hash(),
                    mode,
                    current,
                    false,
                    now());
      } finally {
        scratch.giveBack();
      }
    }
    supersedeLoad(key, key.length);
    afterWrite(result);
    if (result.applied()) {
      if (computed == null) {
        stats.recordRemoval();
      } else {
        stats.recordPut(elapsed(start));
      }
    }
    return result.applied();
  }

  /**
   * Whether a key read as absent still is, for a compute that removes nothing. The read took no
   * lock, so a load's store could have been under way, unseen, with a value read before this
   * compute's change to the data: waiting for the segment's writers lets it land, and no load begun
   * before this compute stores after that (see {@link #supersedeLoad}). A value there now is one
   * the function must see (false: compute reads again); then loads that may have found the removed
   * value are marked, as after any write.
   */
  private boolean staysAbsent(StoredKey stored) {
    byte[] key = stored.bytes();
    stored.segment().awaitWriters();
    boolean absent = stored.segment().peek(key, key.length, stored.hash(), now(), false) == null;
    supersedeLoad(key, key.length);
    return absent;
  }

  // ------------------------------------------------------------------ size, memory, stats

  @Override
  public long estimatedSize() {
    checkOpen();
    return segments.sum(Segment::size);
  }

  @Override
  public void countKeysByFirstByte(int valueMark) {
    if (valueMark < 0 || valueMark > 255) {
      throw new IllegalArgumentException("a value mark is bits of one byte: " + valueMark);
    }
    checkOpen();
    segments.countKeysByFirstByte(valueMark);
  }

  @Override
  public boolean countsKeysByFirstByte() {
    return segments.countsKeysByFirstByte();
  }

  @Override
  public long keysStartingWith(int first) {
    checkCounted(first);
    return segments.sum(segment -> segment.keysStartingWith(first));
  }

  @Override
  public long markedKeysStartingWith(int first) {
    checkCounted(first);
    return segments.sum(segment -> segment.markedKeysStartingWith(first));
  }

  private void checkCounted(int first) {
    if (first < 0 || first > 255) {
      throw new IllegalArgumentException("a byte's unsigned value is 0 to 255: " + first);
    }
    checkOpen();
    if (!segments.countsKeysByFirstByte()) {
      throw new IllegalStateException("this cache does not count keys by their first byte");
    }
  }

  @Override
  public long memoryUsed() {
    checkOpen();
    long total = StoreSizing.CACHE_OVERHEAD + segments.sum(Segment::memoryUsed);
    return config.dictionary() == null ? total : total + config.dictionary().memoryUsed();
  }

  @Override
  public OptionalLong maximumMemory() {
    checkOpen();
    if (!config.memoryBounded()) {
      return OptionalLong.empty();
    }
    ValueDictionary dictionary = config.dictionary();
    // The config holds the store's share; the user's bound set the dictionary's maximum and the
    // hot tier's aside.
    long tier = config.hotTier() ? config.hotTierBytes() : 0;
    return OptionalLong.of(
        config.maximumMemory() + tier + (dictionary == null ? 0 : dictionary.maximumMemory()));
  }

  @Override
  public OptionalLong maximumEntries() {
    checkOpen();
    return config.entryBounded() ? OptionalLong.of(config.maximumEntries()) : OptionalLong.empty();
  }

  @Override
  public Optional<ValueDictionary> dictionary() {
    checkOpen();
    return Optional.ofNullable(config.dictionary());
  }

  @Override
  public boolean recordsStats() {
    checkOpen();
    return config.recordStats();
  }

  /**
   * Registers this cache's {@link dev.larder.management.CacheMXBean} with the platform MBean server
   * under {@code name}; {@link #close()} unregisters it. Called once, by the builder.
   *
   * @param name the cache's management name
   * @throws IllegalStateException if a cache of that name is registered already
   */
  public void registerMXBean(String name) {
    management = CacheManagement.register(this, name);
  }

  /** Returns bytes counted for the hot tier's entries (in {@link #memoryUsed()} too). */
  public long hotTierBytes() {
    return segments.sum(Segment::hotBytes);
  }

  /** Returns entries in the hot tier. */
  public long hotTierSize() {
    return segments.sum(Segment::hotSize);
  }

  /** Returns bytes of live entries (headers, keys and values), for utilisation figures. */
  public long liveBytes() {
    return segments.sum(Segment::liveBytes);
  }

  @Override
  public CacheStats stats() {
    checkOpen();
    return stats.snapshot();
  }

  /**
   * Entries as the map view's iteration counts them, for its size and isEmpty: where entries
   * expire, expired ones are reclaimed first (a pass over every index), since iteration skips them
   * and estimatedSize counts them until they are reclaimed.
   */
  long liveSize() {
    if (config.expires()) {
      cleanUp();
    }
    return estimatedSize();
  }

  @Override
  public void cleanUp() {
    checkOpen();
    sweep(Integer.MAX_VALUE);
  }

  /** Reclaims expired entries, up to {@code slotsPerSegment} index slots a segment. */
  void sweep(int slotsPerSegment) {
    long now = now();
    for (Segment segment : segments) {
      afterWrite(segment.sweepExpired(now, slotsPerSegment));
    }
  }

  @Override
  public ConcurrentMap<K, V> asMap() {
    CacheMapView<K, V> view = mapView;
    if (view == null) {
      view = new CacheMapView<>(this);
      mapView = view;
    }
    return view;
  }

  /** Keys of every live entry, segment by segment; for the map view's iterators. */
  List<byte[]> keySnapshot(int segment) {
    return segments.keys(segment);
  }

  int segmentCount() {
    return segments.routeCount();
  }

  K decodeKey(byte[] bytes) {
    return keyCodec.decodeLast(new ByteSource(bytes));
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (maintenance != null) {
      maintenance.cancel();
    }
    CacheManagement registered = management;
    if (registered != null) {
      registered.unregister();
    }
    release.close();
  }

  boolean isClosed() {
    return closed;
  }

  // ------------------------------------------------------------------ helpers

  private void afterWrite(WriteResult result) {
    stats.recordEvictions(result.evictions(), result.expirations());
    if (!result.removals().isEmpty()) {
      notifyRemovals(result.removals());
    }
  }

  @SuppressWarnings("unchecked")
  private void notifyRemovals(List<RemovedEntry> removed) {
    // The segments collect every removal when there is a removal listener, else only evictions
    // (for the eviction listener): each listener hears what it asked for.
    RemovalListener<? super K, ? super V> listener = config.removalListener();
    RemovalListener<? super K, ? super V> evictions = config.evictionListener();
    for (RemovedEntry entry : removed) {
      if (listener != null) {
        submit((RemovalListener<K, V>) listener, entry);
      }
      if (evictions != null && entry.cause().wasEvicted()) {
        submit((RemovalListener<K, V>) evictions, entry);
      }
    }
  }

  private void submit(RemovalListener<K, V> listener, RemovedEntry entry) {
    try {
      config.executor().execute(() -> deliver(listener, entry));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "removal listener executor rejected a task", e);
    }
  }

  private void deliver(RemovalListener<K, V> listener, RemovedEntry entry) {
    try {
      listener.onRemoval(decodeKey(entry.key()), decodeValue(entry.value()), entry.cause());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "removal listener threw", e);
    }
  }

  /** Returns the key's bytes, in {@code scratch}'s key buffer. */
  private ByteSink encodeKey(K key, ScratchSinks scratch) {
    keyCodec.encodeLast(key, scratch.key());
    return scratch.key();
  }

  /** Returns the value's bytes, in {@code scratch}'s value buffer. */
  private ByteSink encodeValue(V value, ScratchSinks scratch) {
    valueCodec.encodeLast(value, scratch.value());
    return scratch.value();
  }

  /** A value's stored bytes: the first {@code length} of {@code array}. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record ValueBytes(byte[] array, int length) {}

  /**
   * Returns the bytes to store for a value: a raw {@code byte[]} value under {@link #BYTES} as it
   * is (the store copies it into its page), anything else encoded into {@code scratch}.
   */
  @SuppressWarnings("ReferenceEquality") // the built-in byte[] codec itself
  private ValueBytes valueBytes(V value, ScratchSinks scratch) {
    if (valueCodec == BYTES) {
      byte[] raw = (byte[]) value;
      return new ValueBytes(raw, raw.length);
    }
    ByteSink sink = encodeValue(value, scratch);
    return new ValueBytes(sink.array(), sink.size());
  }

  private byte[] encodedKeyCopy(K key) {
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      return encodeKey(key, scratch).toByteArray();
    } finally {
      scratch.giveBack();
    }
  }

  private byte[] encodedValueCopy(V value) {
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      return encodeValue(value, scratch).toByteArray();
    } finally {
      scratch.giveBack();
    }
  }

  /** Returns the key's stored bytes, or null; the value is decoded after the buffers are back. */
  private byte[] lookupKey(K key, boolean copy, boolean access) {
    ScratchSinks scratch = ScratchSinks.borrow();
    try {
      ByteSink sink = encodeKey(key, scratch);
      return lookup(sink.array(), sink.size(), copy, access);
    } finally {
      scratch.giveBack();
    }
  }

  /**
   * Decodes bytes that this class goes on reading after the caller's function has run (compute's
   * expected bytes). A byte[] value is handed over as it is by {@link #decodeValue}, and a function
   * that changes it in place (v[0]++) would otherwise change the expected bytes too, so that the
   * write could never match and compute would retry for ever.
   */
  @SuppressWarnings("ReferenceEquality") // the built-in byte[] codec itself
  private V decodeOwnCopy(byte[] bytes) {
    return decodeValue(valueCodec == BYTES ? bytes.clone() : bytes);
  }

  @SuppressWarnings({"unchecked", "ReferenceEquality"}) // the built-in byte[] codec itself
  V decodeValue(byte[] bytes) {
    if (valueCodec == BYTES) {
      // The store already copied these bytes out for this call alone: hand them over rather
      // than copy them again.
      return (V) bytes;
    }
    return valueCodec.decodeLast(new ByteSource(bytes));
  }

  /**
   * Splits the cache's first segment into the segments its bound calls for if a write of {@code
   * bytes} would take it past its split point (see {@link SegmentTable}).
   */
  private void splitIfDue(int bytes) {
    WriteResult split = segments.splitIfDue(bytes);
    if (split != null) {
      afterWrite(split);
    }
  }

  private Segment segmentFor(long hash) {
    return segments.route(hash);
  }

  private long now() {
    return config.expires() ? config.ticker().read() : 0;
  }

  private long startTimer() {
    return stats.enabled() ? config.ticker().read() : 0;
  }

  private long elapsed(long start) {
    return stats.enabled() ? config.ticker().read() - start : 0;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("cache is closed");
    }
  }

  /** Encoded key bytes with value equality, for the single-flight table. */
  @SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
  private record KeyBytes(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof KeyBytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "KeyBytes[" + bytes.length + "]";
    }
  }

  /** A load in progress; remembers its thread to refuse a recursive load of the same key. */
  private static final class Flight<V> {
    final Thread owner;
    final CompletableFuture<V> future = new CompletableFuture<>();

    /** Set by a write to the key after the load began; read by the load's store. */
    volatile boolean superseded;

    Flight(Thread owner) {
      this.owner = owner;
    }

    V await() {
      if (owner == Thread.currentThread()) {
        throw new IllegalStateException("recursive load: the loader asked for its own key");
      }
      try {
        return future.join();
      } catch (CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw new CacheLoadingException("load failed", cause);
      }
    }
  }
}
