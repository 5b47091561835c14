package dev.larder.server.internal.keyspace;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.RemovalCause;
import dev.larder.codec.Codecs;
import dev.larder.internal.bulk.BulkRestore;
import dev.larder.internal.bulk.BulkSnapshot;
import dev.larder.internal.bulk.EncodedEntries;
import dev.larder.internal.count.FirstByteCounts;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The server's data: 16 numbered databases of byte-string keys, held in one byte-bounded Larder
 * cache, with per-key expiry, value types and versions.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A stored key is the database number (one byte) followed by the key's bytes; a stored value is
 * {@link ValueLayout}'s encoding. Every database shares the one memory bound, and Larder's eviction
 * policy chooses victims across all of them (Redis's {@code allkeys-lfu} in spirit).
 *
 * <p>Expiry is per key and absolute, kept in the value: a read that finds an expired value treats
 * it as absent and removes it, conditionally on the bytes it read, so a concurrent rewrite is not
 * lost. {@link #sweepExpired} walks the keys a slice at a time to reclaim keys nobody reads.
 *
 * <p>Every write goes through the cache's atomic compute and gets a fresh version from one counter,
 * so a version names one write of one key: memcached's CAS unique and the witness WATCH compares.
 * Single-key commands are atomic by themselves; commands that touch several keys, and transactions,
 * take {@link #exclusive()} while every other command holds {@link #shared()}, so nothing
 * interleaves with them.
 *
 * <p><b>Logging</b> ({@link #attach}): every change is reported to a {@link ChangeSink} as the
 * bytes stored. A key's changes must reach the sink in the order the cache applied them, and the
 * cache's compute runs its function outside any lock (possibly twice), so a single-key change holds
 * one of {@value #STRIPES} stripe monitors, chosen by the stored key's hash, around "apply, then
 * report": writers of one key take the same stripe. The exclusive lock brackets its whole section
 * as one group ({@link ChangeSink#begin()}); a flush of a database takes every stripe. Evictions
 * are reported from the cache's listener, on the writing thread, inside the write's group. Removals
 * of expired values are not reported: the expiry is in the stored value.
 *
 * <p>Thread-safe.
 */
public final class Keyspace implements AutoCloseable {
  /** The number of databases (SELECT 0 to 15). */
  public static final int DATABASES = 16;

  /** Stripe monitors ordering a key's changes with their reports; a power of two. */
  static final int STRIPES = 1024;

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final Lock exclusive = new GroupedWriteLock();
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private volatile ChangeSink sink = ChangeSink.NONE;
  private volatile KeyObserver observer = KeyObserver.NONE;
  private volatile boolean logged;

  /** A standalone keyspace's last version given out; null when a cluster gives the versions. */
  private final AtomicLong counter;

  /** Gives each write its version: the counter, or a clustered server's {@code Versions}. */
  private final LongSupplier versions;

  /**
   * Where the expiry sweep walks: the whole cache, or (clustered) the entries this member is
   * primary of.
   */
  private final Supplier<Iterator<Map.Entry<byte[], byte[]>>> sweepWalk;

  /** Whether the cache was given (a clustered one): it is not rebuilt by {@link #resize}. */
  private final boolean given;

  /**
   * Set once {@link #store} handed the cache out (a durable cluster member's, to its cluster,
   * before recovery fills it): {@link #presize} then keeps it, since the holder would keep the old
   * one.
   */
  private volatile boolean handedOut;

  private final LongSupplier clock;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder evicted = new LongAdder();

  /** Values with an expiry stored so far, counted after each such write (see sweepExpired). */
  private final LongAdder expiringWrites = new LongAdder();

  private volatile Cache<byte[], byte[]> cache;
  private volatile long maxMemory;

  /** The member a clustered keyspace runs on ({@link #clusterStore}), or null. */
  private volatile ClusterStore member;

  /** Chunked collections' shared machinery: eviction follow-up, removal with their head. */
  private final ChunkStore chunks;

  /** Large lists' chunks: the list commands' reads and writes. */
  private final ListStore lists;

  /** Large sets' chunks: the set commands' reads and writes. */
  private final RangeStore sets;

  /** Large hashes' chunks: the hash commands' reads and writes. */
  private final RangeStore hashes;

  /** Large sorted sets' chunks: the sorted-set commands' reads and writes. */
  private final ZSetStore zsets;

  /**
   * Hot chunked sets and hashes held open in memory (see {@link OpenCollections}); null on a
   * clustered keyspace, which keeps every collection packed.
   */
  private final OpenCollections open;

  /**
   * Set once a chunked list exists (sticky): from then on a blind overwrite reads the old value
   * back, to remove the chunks of a list it replaces.
   */
  private volatile boolean anyChunked;

  // The sweep's walk; guarded by this (sweepExpired is synchronized).
  private Iterator<Map.Entry<byte[], byte[]>> sweep;
  private long passStartWrites;
  private boolean passSawExpiring;

  /** expiringWrites' count when a whole pass found no key with an expiry; -1 while sweeping. */
  private long quietAt;

  /** This sweep call's remaining times seen, by database; guarded by this. */
  private final long[] ttlSampleSums = new long[DATABASES];

  private final long[] ttlSamples = new long[DATABASES];

  /** The sweep's average remaining time of each database's expiring keys (INFO's avg_ttl). */
  private final AtomicLongArray averageTtls = new AtomicLongArray(DATABASES);

  /**
   * @param maxMemory the byte bound of the whole keyspace (at least 64 KiB)
   * @param clock the current Unix time in milliseconds
   */
  public Keyspace(long maxMemory, LongSupplier clock) {
    this.clock = clock;
    this.maxMemory = maxMemory;
    this.cache = build(maxMemory);
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.counter = new AtomicLong();
    this.versions = counter::incrementAndGet;
    this.sweepWalk = () -> cache.asMap().entrySet().iterator();
    this.given = false;
    this.chunks = new ChunkStore(this);
    this.lists = new ListStore(this, chunks, true);
    this.sets = new RangeStore(this, chunks, ValueType.SET, true);
    this.hashes = new RangeStore(this, chunks, ValueType.HASH, true);
    this.zsets = new ZSetStore(this, chunks, true);
    this.open = new OpenCollections(this, OpenCollections.defaultBudget(maxMemory));
    // A switch for measuring the tier against the store's form alone in one build.
    if ("false".equals(System.getProperty("larder.openCollections"))) {
      this.open.enable(false);
    }
  }

  /**
   * A keyspace over a cache built elsewhere: a clustered server's, whose entries live on several
   * members. The stored keys and values are the same as a standalone keyspace's. The cache's
   * evictions are not counted, its bound cannot be changed ({@link #resize} refuses), and a failed
   * removal of an expired value found by a read is left to the sweep.
   *
   * @param cache the cache of stored keys and values; closed with the keyspace
   * @param maxMemory the cache's byte bound (what INFO and noeviction report)
   * @param clock the current Unix time in milliseconds
   * @param versions gives each write a version unique to that write of that key
   * @param sweepWalk a new walk, for each pass of the expiry sweep, of the entries this keyspace
   *     must look at: with a {@link #clusterStore}, every entry the member holds (a pass that sees
   *     no expiry among them lets the sweep idle), of which it removes those the member sweeps
   */
  public Keyspace(
      Cache<byte[], byte[]> cache,
      long maxMemory,
      LongSupplier clock,
      LongSupplier versions,
      Supplier<Iterator<Map.Entry<byte[], byte[]>>> sweepWalk) {
    this.cache = cache;
    this.maxMemory = maxMemory;
    this.clock = clock;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.counter = null;
    this.versions = versions;
    this.sweepWalk = sweepWalk;
    this.given = true;
    // A clustered keyspace keeps every list packed: its chunks would have to live on their
    // head's members and be evicted with it there, which the clustered store cannot express.
    this.chunks = new ChunkStore(this);
    this.lists = new ListStore(this, chunks, false);
    this.sets = new RangeStore(this, chunks, ValueType.SET, false);
    this.hashes = new RangeStore(this, chunks, ValueType.HASH, false);
    this.zsets = new ZSetStore(this, chunks, false);
    // None: a clustered keyspace keeps every collection packed, so none could open.
    this.open = null;
  }

  /**
   * Starts reporting every change to {@code changes}. Called once, before any command runs (after
   * the log has been replayed into this keyspace).
   *
   * @param changes the sink
   * @throws IllegalStateException for a keyspace over a clustered cache, which is not logged
   */
  @SuppressWarnings("ReferenceEquality") // NONE is the sentinel for no change log
  public void attach(ChangeSink changes) {
    if (given && changes != ChangeSink.NONE) {
      throw new IllegalStateException("a clustered keyspace is not logged");
    }
    this.sink = changes;
    this.logged = changes != ChangeSink.NONE;
  }

  /**
   * Reports every change of a key to {@code keys} from now on: the one observer of the keyspace,
   * which fans out to blocked clients, keyspace notifications and client-side caching ({@link
   * KeyObservers#of}), so that a write reads one volatile field to reach them all. Called once,
   * before any command runs.
   *
   * @param keys the observer
   */
  public void observe(KeyObserver keys) {
    this.observer = keys;
  }

  /**
   * Tells a keyspace over a clustered cache which member it runs on: its puts may then be
   * acknowledged later than they return ({@link ClusterStore#putDeferred}), and its expiry sweep
   * walks every entry the walk gives, removes only those the member {@linkplain ClusterStore#sweeps
   * sweeps}, and idles while {@link ClusterStore#expiringStored} stands still. Called once, before
   * any command runs.
   *
   * @param store the member
   * @throws IllegalStateException for a keyspace over its own cache
   */
  public void clusterStore(ClusterStore store) {
    if (!given) {
      throw new IllegalStateException("a standalone keyspace has no cluster");
    }
    this.member = store;
  }

  private Cache<byte[], byte[]> build(long bytes) {
    return build(bytes, 0);
  }

  private Cache<byte[], byte[]> build(long bytes, long initialCapacity) {
    Cache<byte[], byte[]> built = builder(bytes, initialCapacity).build();
    // DBSIZE and INFO keyspace read the store's counts by database byte, and of values with an
    // expiry, instead of walking every key.
    if (built instanceof FirstByteCounts counts) {
      counts.countKeysByFirstByte(ValueLayout.EXPIRY_BIT);
    }
    return built;
  }

  private CacheBuilder<byte[], byte[]> builder(long bytes, long initialCapacity) {
    return Cache.builder(Codecs.bytes(), Codecs.bytes())
        .maximumMemory(bytes)
        .initialCapacity(initialCapacity)
        // The listener only counts evictions: run it on the writing thread. On the default
        // executor (the common pool) every overwrite of a key handed a task to another thread
        // and woke it, about a seventh of the server's CPU under redis-benchmark SET. An
        // eviction listener, not a removal listener: with the latter the store copied out the
        // old key and value of every overwrite for a notice this listener ignores.
        .executor(Runnable::run)
        .evictionListener(
            (k, v, cause) -> {
              if (cause == RemovalCause.SIZE) {
                if (logged) {
                  sink.evict(k, ValueLayout.versionOf(v));
                }
                if (ChunkKey.isChunkKey(k)) {
                  // Its list goes with it, once the writer has left its stripe.
                  chunks.chunkEvicted(k);
                  return;
                }
                evicted.increment();
                observer.evicted(k);
                if (ChunkStore.isHeadValue(v)) {
                  if (open != null) {
                    open.markMoved(k); // its open collection checks the store at its next command
                  }
                  chunks.headEvicted(k, v);
                }
              }
            });
  }

  /**
   * Returns the cache the keyspace stores in now (replaced by {@link #resize}; no longer by {@link
   * #presize} once handed out here). For a clustered member's own store: the cluster writes it,
   * this keyspace's log records it and its checkpoints walk it (docs/design/server.md, Clustering).
   */
  public Cache<byte[], byte[]> store() {
    handedOut = true;
    return cache;
  }

  /**
   * Turns the open-collections tier on (the default) or off: hot chunked sets and hashes held in
   * memory while they are hot (docs/design/server.md, "Open collections"). It is used only by a
   * standalone keyspace without a log, whatever this says. Off closes every open collection.
   *
   * @param on whether collections may open
   */
  public void openCollections(boolean on) {
    if (open != null) {
      open.enable(on);
    }
  }

  /** Returns the open-collections tier, or null on a clustered keyspace (which has none). */
  OpenCollections openCollections() {
    return open;
  }

  /**
   * Returns the open-collections tier if a collection may be open in it (one volatile read), else
   * null: the test every path that must see open collections makes first.
   */
  OpenCollections openIfAny() {
    return open != null && open.any() ? open : null;
  }

  /**
   * Returns whether a collection may open: the tier is on, and the keyspace unlogged, unclustered.
   */
  boolean opensCollections() {
    return open != null && !logged && open.enabled();
  }

  /**
   * Counts a command on a key's chunked collection toward the key's heat and returns the tier the
   * collection may open in now: the tier if collections open here, the command is not logged
   * ({@code sink} null) and the key is hot; else null. Under the key's stripe.
   *
   * @param stored the key as stored
   * @param sink the command's change sink, null if unlogged
   */
  OpenCollections tierToOpen(byte[] stored, ChangeSink sink) {
    return sink == null && opensCollections() && open.hot(stored) ? open : null;
  }

  /**
   * Returns the open collections' figures: how many are open, their bytes, how many opened so far,
   * how many closed or were dropped so far (INFO).
   */
  public long[] openCollectionStats() {
    if (open == null) {
      return new long[4];
    }
    long[] c = open.counters();
    return new long[] {open.count(), open.bytes(), c[0], c[1]};
  }

  /**
   * Closes every open collection (writes its changes to the store): for a reader of the store
   * itself. Must not be called holding a key's stripe.
   */
  public void closeOpenCollections() {
    if (open != null) {
      open.closeAll();
    }
  }

  /** Returns the store of lists. */
  ListStore listStore() {
    return lists;
  }

  /** Returns the store of sorted sets. */
  ZSetStore zsetStore() {
    return zsets;
  }

  /** Returns the store of sets or of hashes. */
  RangeStore rangeStore(ValueType type) {
    return type == ValueType.SET ? sets : hashes;
  }

  /** Does what evictions left to do on this thread (see {@link ChunkStore#settle}). */
  void settleChunks() {
    chunks.settle();
  }

  /** Returns the lock every command but the exclusive ones holds while it runs. */
  public Lock shared() {
    return lock.readLock();
  }

  /**
   * Waits until every change made so far may be acknowledged under the log's policy (at once
   * without a log). Must not be called holding {@link #shared()} or {@link #exclusive()}.
   */
  public void awaitDurable() {
    sink.awaitDurable();
  }

  /**
   * Returns the lock multi-key commands and EXEC hold, excluding every other command; with a log,
   * the changes made while it is held are one atomic group.
   */
  public Lock exclusive() {
    return exclusive;
  }

  /** Returns the current Unix time in milliseconds, as expiry sees it. */
  public long now() {
    return clock.getAsLong();
  }

  /**
   * Reads a key, counting a hit or a miss.
   *
   * @param db the database
   * @param key the key
   * @return its live value, or null
   */
  public StoredValue get(int db, byte[] key) {
    StoredValue value = peek(db, key);
    (value == null ? misses : hits).increment();
    return value;
  }

  /**
   * Reads a key's stored bytes ({@link ValueLayout}'s encoding), counting a hit or a miss: for
   * writing a value out without decoding it into a {@link StoredValue}.
   *
   * @param db the database
   * @param key the key
   * @return the live value's stored bytes (the caller's own array), or null
   */
  public byte[] getStored(int db, byte[] key) {
    byte[] stored = storedKey(db, key);
    byte[] bytes = liveOrRemove(stored);
    if (bytes != null && ChunkStore.isHeadValue(bytes)) {
      StoredValue whole = chunks.materialized(stored);
      bytes = whole == null ? null : ValueLayout.encode(whole);
    }
    (bytes == null ? misses : hits).increment();
    settle();
    return bytes;
  }

  /**
   * Stores a string with no expiry and no flags unconditionally (a plain SET), as {@link #put}
   * does, without building a {@link StoredValue}.
   *
   * @param db the database
   * @param key the key
   * @param payload the string's bytes
   */
  public void putString(int db, byte[] key, byte[] payload) {
    byte[] stored = storedKey(db, key);
    int created = createdFlag(stored);
    if (!logged) {
      overwrite(stored, ValueLayout.encodeString(versions.getAsLong(), payload));
    } else {
      reported(
          stored,
          () -> {
            byte[] value = ValueLayout.encodeString(versions.getAsLong(), payload);
            overwrite(stored, value);
            sink.put(stored, value);
            return null;
          });
    }
    observer.changed(stored, created);
    settle();
  }

  /**
   * Reads a key without counting it.
   *
   * @param db the database
   * @param key the key
   * @return its live value, or null
   */
  public StoredValue peek(int db, byte[] key) {
    byte[] stored = storedKey(db, key);
    byte[] bytes = liveOrRemove(stored);
    if (bytes != null && ChunkStore.isHeadValue(bytes)) {
      StoredValue whole = chunks.materialized(stored);
      settle();
      return whole;
    }
    return bytes == null ? null : ValueLayout.decode(bytes);
  }

  /**
   * Reads a key's header as {@link #peekHeader} does, but leaves an open collection open: for a
   * look at its type only (LMOVE's and a blocked client's check of a key's type). The store keeps
   * an open collection's head, whose type is the collection's; its version is not (the changes
   * since it opened have theirs when it closes), so WATCH and EXEC use {@link #peekHeader}.
   *
   * @param db the database
   * @param key the key
   * @return its live value (for an open collection, the head it opened from), or null
   */
  public StoredValue peekType(int db, byte[] key) {
    byte[] bytes = liveOrRemove(storedKey(db, key));
    return bytes == null ? null : ValueLayout.decode(bytes);
  }

  /**
   * Reads a key without counting it and without reading a chunked list's chunks: for a look at its
   * type, expiry or version only. A chunked list's payload is its head ({@link ListChunks}), not a
   * list payload.
   *
   * @param db the database
   * @param key the key
   * @return its live value, or null
   */
  public StoredValue peekHeader(int db, byte[] key) {
    byte[] stored = storedKey(db, key);
    if (openIfAny() != null) {
      open.close(stored); // its version is given when it closes (WATCH reads it)
    }
    byte[] bytes = liveOrRemove(stored);
    return bytes == null ? null : ValueLayout.decode(bytes);
  }

  /**
   * Runs a list command on a key: {@code edit} gets the live value (null if absent; its payload is
   * not to be read) and the list, empty when the key is absent, in either stored form; what it
   * changes in the list is written back as one change of the key (an emptied list deletes it). The
   * edit may run more than once, so it must be free of side effects other than on the list; it must
   * not change the list of a key of another type (it throws WRONGTYPE instead).
   *
   * @param db the database
   * @param key the key
   * @param edit the command
   * @param <R> its result
   * @return the result of the run that took effect
   */
  public <R> R editList(int db, byte[] key, ListStore.Edit<R> edit) {
    return settled(db, key, stored -> lists.edit(stored, edit));
  }

  /**
   * Runs a read-only list command on a key, counting a hit or a miss: {@code read} gets the live
   * value (null if absent) and, if it is a list, the list (else null).
   *
   * @param db the database
   * @param key the key
   * @param read the command, which must not change the list
   * @param <R> its result
   * @return the read's result
   */
  public <R> R readList(int db, byte[] key, ListStore.Edit<R> read) {
    return settled(db, key, stored -> lists.read(stored, read));
  }

  /**
   * Runs a set command on a key, as {@link #editList} runs a list command: {@code edit} gets the
   * live value (null if absent; its payload not to be read) and the set (empty when the key is
   * absent; null when it holds another type), in either stored form; what it changes is written
   * back as one change of the key (an emptied set deletes it). It may run more than once.
   *
   * @param db the database
   * @param key the key
   * @param edit the command
   * @param <R> its result
   * @return the result of the run that took effect
   */
  public <R> R editSet(int db, byte[] key, RangeStore.Edit<R> edit) {
    return settled(db, key, stored -> sets.edit(stored, edit));
  }

  /**
   * Runs a read-only set command on a key, counting a hit or a miss: {@code read} gets the live
   * value (null if absent) and, if it is a set, the set (else null).
   *
   * @param db the database
   * @param key the key
   * @param read the command, which must not change the set
   * @param <R> its result
   * @return the read's result
   */
  public <R> R readSet(int db, byte[] key, RangeStore.Edit<R> read) {
    return settled(db, key, stored -> sets.read(stored, read));
  }

  /**
   * Runs a hash command on a key: as {@link #editSet}, on a hash.
   *
   * @param db the database
   * @param key the key
   * @param edit the command
   * @param <R> its result
   * @return the result of the run that took effect
   */
  public <R> R editHash(int db, byte[] key, RangeStore.Edit<R> edit) {
    return settled(db, key, stored -> hashes.edit(stored, edit));
  }

  /**
   * Runs a read-only hash command on a key: as {@link #readSet}, on a hash.
   *
   * @param db the database
   * @param key the key
   * @param read the command, which must not change the hash
   * @param <R> its result
   * @return the read's result
   */
  public <R> R readHash(int db, byte[] key, RangeStore.Edit<R> read) {
    return settled(db, key, stored -> hashes.read(stored, read));
  }

  /**
   * Runs a sorted-set command on a key, as {@link #editList} runs a list command: {@code edit} gets
   * the live value (null if absent; its payload not to be read) and the sorted set (empty when the
   * key is absent; null when it holds another type), in either stored form; what it changes is
   * written back as one change of the key (an emptied set deletes it). It may run more than once.
   *
   * @param db the database
   * @param key the key
   * @param edit the command
   * @param <R> its result
   * @return the result of the run that took effect
   */
  public <R> R editZSet(int db, byte[] key, ZSetStore.Edit<R> edit) {
    return settled(db, key, stored -> zsets.edit(stored, edit));
  }

  /**
   * Runs a read-only sorted-set command on a key, counting a hit or a miss: {@code read} gets the
   * live value (null if absent) and, if it is a sorted set, the set (else null).
   *
   * @param db the database
   * @param key the key
   * @param read the command, which must not change the set
   * @param <R> its result
   * @return the read's result
   */
  public <R> R readZSet(int db, byte[] key, ZSetStore.Edit<R> read) {
    return settled(db, key, stored -> zsets.read(stored, read));
  }

  /**
   * Runs a command of a collection type on a key's stored key, then does what evictions the command
   * caused left to do ({@link #settle}, outside the key's stripe): the shape of every {@code editX}
   * and {@code readX}.
   */
  private <R> R settled(int db, byte[] key, Function<byte[], R> command) {
    R result = command.apply(storedKey(db, key));
    settle();
    return result;
  }

  /**
   * Stores a value RESTORE decoded, as its expiry says (RESTORE checks for a deadline already
   * past). A list, set, hash or sorted set whose packed payload is past the size at which its
   * commands chunk it is written in chunks, as they would write it, never as one value (which might
   * not fit in a segment): that takes several changes of the key (the old value removed, the
   * collection written, for a list or sorted set then its expiry), so the caller holds {@link
   * #exclusive()}, which makes them one change to every other command and one group of the log. A
   * keyspace over a clustered cache, which keeps every collection packed, stores it as one value.
   *
   * @param db the database
   * @param key the key
   * @param value a value {@link DumpPayload#decode} gave, with its expiry set
   * @param replace whether a live value of the key may be replaced
   * @return false, having changed nothing, if the key holds a live value and {@code replace} is
   *     false
   */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  public boolean restoreKey(int db, byte[] key, StoredValue value, boolean replace) {
    if (given || !chunkedWhole(value)) {
      Change change = update(db, key, before -> before != null && !replace ? before : value);
      return replace || change.before() == null;
    }
    if (peekHeader(db, key) != null) {
      if (!replace) {
        return false;
      }
      delete(db, key);
    }
    byte[] stored = storedKey(db, key);
    byte[] payload = value.payload();
    switch (value.type()) {
      case SET -> sets.replaceWhole(stored, payload, value.expiresAtMillis());
      case HASH -> hashes.replaceWhole(stored, payload, value.expiresAtMillis());
      case LIST -> lists.edit(stored, (before, list) -> pushAll(list, payload));
      case ZSET -> zsets.edit(stored, (before, set) -> putAll(set, payload));
      case STRING -> throw new IllegalStateException("a string is never chunked");
    }
    settle();
    if (value.volatileKey() && (value.type() == ValueType.LIST || value.type() == ValueType.ZSET)) {
      // Their stores write a new key without an expiry; the update rewrites the head alone.
      update(db, key, v -> v == null ? null : v.withExpiry(value.expiresAtMillis()));
    }
    return true;
  }

  /** Whether a restored value is a collection its commands would keep in chunks. */
  private static boolean chunkedWhole(StoredValue value) {
    int length = value.payload().length;
    return switch (value.type()) {
      case STRING -> false;
      case LIST -> length > ListBody.PACKED_MAX;
      case SET, HASH -> length > RangeBody.PACKED_MAX;
      case ZSET -> length > ZSetBody.PACKED_MAX;
    };
  }

  private static Void pushAll(ListBody list, byte[] payload) {
    list.pushTail(ListPayload.decode(payload));
    return null;
  }

  private static Void putAll(ZSetBody set, byte[] payload) {
    set.putAll(ZSetPayload.entries(payload));
    return null;
  }

  /**
   * Atomically replaces a key's value with {@code fn}'s result. The function sees the live value
   * (null when absent or expired) and returns the new one, null to delete, or the very object it
   * was given to leave the key as it is. It may run more than once, so it must be free of side
   * effects.
   *
   * @param db the database
   * @param key the key
   * @param fn the change
   * @return the value before and after, as seen by the run that took effect
   */
  public Change update(int db, byte[] key, UnaryOperator<StoredValue> fn) {
    return update(db, key, fn, true);
  }

  /**
   * As {@link #update(int, byte[], UnaryOperator)}, but a changed value keeps the version {@code
   * fn} gave it when {@code newVersion} is false: memcached's {@code touch} and {@code gat} change
   * an item's expiry and keep its CAS unique, as memcached does.
   *
   * @param db the database
   * @param key the key
   * @param fn the change
   * @param newVersion whether a changed value gets a new version
   * @return the value before and after, as seen by the run that took effect
   */
  public Change update(int db, byte[] key, UnaryOperator<StoredValue> fn, boolean newVersion) {
    byte[] stored = storedKey(db, key);
    Change change =
        logged ? updateLogged(stored, fn, newVersion) : apply(stored, fn, newVersion, null);
    observeChange(stored, change);
    settle();
    return change;
  }

  /** Tells the observer of an update's outcome. */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  void observeChange(byte[] stored, Change change) {
    if (change.expiredBefore()) {
      observer.expired(stored);
    }
    StoredValue before = change.before();
    StoredValue after = change.after();
    if (after == before) {
      return;
    }
    int how;
    if (after == null) {
      how = KeyObserver.REMOVED;
    } else {
      long was = before == null ? 0 : before.expiresAtMillis();
      long is = after.expiresAtMillis();
      how =
          is != 0 && is != was
              ? KeyObserver.EXPIRY_SET
              : is == 0 && was != 0 ? KeyObserver.EXPIRY_CLEARED : 0;
      if (before == null) {
        how |= KeyObserver.CREATED;
      }
    }
    observer.changed(stored, how);
  }

  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private Change updateLogged(byte[] stored, UnaryOperator<StoredValue> fn, boolean newVersion) {
    return reported(
        stored,
        () -> {
          byte[][] bytes = new byte[1][];
          Change change = apply(stored, fn, newVersion, bytes);
          if (change.after() != change.before()) {
            if (change.after() != null) {
              sink.put(stored, bytes[0]);
            } else if (change.before() != null) {
              sink.delete(stored);
            }
          }
          return change;
        });
  }

  /** The compute of {@link #update}; {@code bytes[0]}, if given, gets the stored bytes. */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private Change apply(
      byte[] stored, UnaryOperator<StoredValue> fn, boolean newVersion, byte[][] bytes) {
    Change[] result = new Change[1];
    boolean[] chunked = new boolean[1];
    long now = now();
    cache.compute(
        stored,
        (k, old) -> {
          chunked[0] = old != null && ChunkStore.isHeadValue(old);
          if (chunked[0]) {
            return old; // a chunked list: changed below, with its chunks
          }
          StoredValue before = old == null ? null : ValueLayout.decode(old);
          boolean expiredBefore = before != null && before.expiredAt(now);
          if (expiredBefore) {
            before = null;
          }
          StoredValue after = fn.apply(before);
          if (after == before) {
            result[0] = new Change(before, before, expiredBefore);
            return before == null ? null : old;
          }
          if (after != null && newVersion) {
            after = after.withVersion(versions.getAsLong());
          }
          result[0] = new Change(before, after, expiredBefore);
          byte[] encoded = after == null ? null : ValueLayout.encode(after);
          if (bytes != null) {
            bytes[0] = encoded;
          }
          return encoded;
        });
    if (chunked[0]) {
      return chunks.updateWhole(stored, fn, newVersion, bytes);
    }
    Change change = result[0];
    if (change.after() != null && change.after() != change.before()) {
      if (change.after().volatileKey()) {
        expiringWrites.increment();
      }
    }
    return change;
  }

  /**
   * Stores a value unconditionally.
   *
   * @param db the database
   * @param key the key
   * @param value the value (its version is replaced by a fresh one)
   * @return the stored value
   */
  public StoredValue put(int db, byte[] key, StoredValue value) {
    byte[] stored = storedKey(db, key);
    int created = createdFlag(stored);
    StoredValue versioned;
    if (!logged) {
      versioned = value.withVersion(versions.getAsLong());
      overwrite(stored, ValueLayout.encode(versioned));
    } else {
      versioned =
          reported(
              stored,
              () -> {
                StoredValue v = value.withVersion(versions.getAsLong());
                byte[] bytes = ValueLayout.encode(v);
                overwrite(stored, bytes);
                sink.put(stored, bytes);
                return v;
              });
    }
    if (versioned.volatileKey()) {
      expiringWrites.increment();
    }
    observer.changed(stored, (versioned.volatileKey() ? KeyObserver.EXPIRY_SET : 0) | created);
    settle();
    return versioned;
  }

  /**
   * Stores a value over whatever the key held: a blind put until a chunked list exists, then a put
   * that reads the old value back, so that a chunked list it replaces loses its chunks too.
   *
   * <p>The first chunked list may appear while a blind put is under way: its conversion sets {@code
   * anyChunked} before it writes its chunks and replaces the packed list by its head. So the put
   * reads the flag again once it is done. Still clear: the conversion's replacement of the head
   * comes after this put (a flag read and the store's write on each side, in opposite orders: one
   * of the two sees the other's write) and finds this value, not the packed list it read, so it
   * takes its chunks back and runs again. Set meanwhile, on an unlogged keyspace: this put may have
   * replaced a head blind, and the chunks its head named are removed here. A logged keyspace puts
   * under the key's stripe, which the conversion holds too, so it cannot interleave.
   */
  private void overwrite(byte[] stored, byte[] bytes) {
    if (open == null) {
      overwriteUnannounced(stored, bytes);
      return;
    }
    int slot = open.blindWriteBegins(stored); // an open collection of the key sees it
    try {
      overwriteUnannounced(stored, bytes);
    } finally {
      open.blindWriteDone(slot);
    }
  }

  private void overwriteUnannounced(byte[] stored, byte[] bytes) {
    if (!anyChunked) {
      ClusterStore m = member;
      if (m == null || !m.putDeferred(stored, bytes)) {
        cache.put(stored, bytes);
      }
      if (anyChunked && !logged) {
        chunks.dropUnnamedChunks(stored);
      }
      return;
    }
    byte[] old = cache.asMap().put(stored, bytes);
    if (old != null && ChunkStore.isHeadValue(old)) {
      chunks.release(stored, old);
    }
  }

  /**
   * Returns whether a live value was removed.
   *
   * @param db the database
   * @param key the key
   */
  public boolean delete(int db, byte[] key) {
    byte[] stored = storedKey(db, key);
    byte[] old;
    if (!logged && open != null) {
      int slot = open.blindWriteBegins(stored); // an open collection of the key sees it
      try {
        old = cache.remove(stored);
      } finally {
        open.blindWriteDone(slot);
      }
    } else if (!logged) {
      old = cache.remove(stored);
    } else {
      old =
          reported(
              stored,
              () -> {
                byte[] removed = cache.remove(stored);
                if (removed != null) {
                  sink.delete(stored);
                  if (ChunkStore.isHeadValue(removed)) {
                    chunks.release(stored, removed);
                  }
                }
                return removed;
              });
    }
    if (old == null) {
      return false;
    }
    if (!logged && ChunkStore.isHeadValue(old)) {
      chunks.release(stored, old);
    }
    settle();
    if (expired(old)) {
      observer.expired(stored);
      return false;
    }
    observer.changed(stored, KeyObserver.REMOVED);
    return true;
  }

  /**
   * Runs a single-key change that reports itself to the sink, under the key's stripe and in a group
   * of its own (which the evictions it causes join), so that the sink hears of a key's changes in
   * the order the cache applied them.
   */
  private <T> T reported(byte[] stored, Supplier<T> change) {
    ReentrantLock stripe = stripe(stored);
    stripe.lock();
    try {
      sink.begin();
      try {
        return change.get();
      } finally {
        sink.end();
      }
    } finally {
      stripe.unlock();
    }
  }

  /** Returns the stripe monitor of a stored key. */
  ReentrantLock stripe(byte[] stored) {
    return stripes[spread(Arrays.hashCode(stored)) & (STRIPES - 1)];
  }

  /** Returns the cache the keyspace stores in now. */
  Cache<byte[], byte[]> cache() {
    return cache;
  }

  /** Returns the sink changes are reported to, or null without a log. */
  ChangeSink sinkIfLogged() {
    return logged ? sink : null;
  }

  /** Returns a fresh version. */
  long nextVersion() {
    return versions.getAsLong();
  }

  /** Returns the observer of changes. */
  KeyObserver observer() {
    return observer;
  }

  /** Counts a read: a hit or a miss. */
  void countRead(boolean hit) {
    (hit ? hits : misses).increment();
  }

  /** Counts an eviction of a key. */
  void countEviction() {
    evicted.increment();
  }

  /** Counts a key removed because it expired (INFO's {@code expired_keys}). */
  void countExpired() {
    expired.increment();
  }

  /** Counts a stored value with an expiry (for the sweep). */
  void countExpiring() {
    expiringWrites.increment();
  }

  /** Notes that a chunked list exists: blind overwrites read the old value back from now on. */
  void noteChunked() {
    anyChunked = true;
  }

  /**
   * Removes what evictions left behind on this thread: the chunks of an evicted list, and the list
   * of an evicted chunk. Called after a change has left its stripe.
   */
  private void settle() {
    chunks.settle();
  }

  /**
   * Calls {@code action} for every live key of a database, in no particular order. Keys written
   * during the walk may or may not be seen.
   *
   * @param db the database
   * @param action given each key (a fresh array) and its value
   */
  public void forEach(int db, BiConsumer<byte[], StoredValue> action) {
    long now = now();
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      byte[] k = e.getKey();
      if (k[0] == db) {
        StoredValue v = ValueLayout.decode(e.getValue());
        if (!v.expiredAt(now)) {
          if (ChunkStore.isHead(v)) {
            v = chunks.materialized(k);
            if (v == null) {
              continue;
            }
          }
          action.accept(Arrays.copyOfRange(k, 1, k.length), v);
        }
      }
    }
  }

  /**
   * Calls {@code action} for every live key of a database with its type, in no particular order,
   * reading each value's header only (a large list's chunks are not read). Keys written during the
   * walk may or may not be seen.
   *
   * @param db the database
   * @param action given each key (a fresh array) and its type
   */
  public void forEachKey(int db, BiConsumer<byte[], ValueType> action) {
    long now = now();
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      byte[] k = e.getKey();
      if (k[0] == db) {
        ValueLayout.Header h = ValueLayout.header(e.getValue());
        if (h.expiresAtMillis() == 0 || h.expiresAtMillis() > now) {
          action.accept(Arrays.copyOfRange(k, 1, k.length), h.type());
        }
      }
    }
  }

  /**
   * Returns keys, keys with an expiry and their average remaining time, per database: {@code
   * [db][0]} keys, {@code [db][1]} expiring, {@code [db][2]} the expiring keys' average remaining
   * milliseconds. Keys expired but not yet removed are counted, as Redis counts them: the store's
   * counts by database byte (no walk), and the average as the expiry sweep last estimated it. A
   * keyspace over a clustered cache, which keeps no such counts, walks the whole cache and counts
   * live keys only.
   */
  public long[][] counts() {
    Cache<byte[], byte[]> current = cache;
    if (!(current instanceof FirstByteCounts counted) || !counted.countsKeysByFirstByte()) {
      return walkCounts(current);
    }
    long[][] counts = new long[DATABASES][3];
    for (int db = 0; db < DATABASES; db++) {
      counts[db][0] = counted.keysStartingWith(db);
      counts[db][1] = counted.markedKeysStartingWith(db);
      counts[db][2] = counts[db][1] == 0 ? 0 : averageTtl(db);
    }
    return counts;
  }

  /** {@link #counts()} by a walk of every key: live keys only, the exact average. */
  private long[][] walkCounts(Cache<byte[], byte[]> walked) {
    long[][] counts = new long[DATABASES][3];
    long now = now();
    for (Map.Entry<byte[], byte[]> e : walked.asMap().entrySet()) {
      if (ChunkKey.isChunkKey(e.getKey())) {
        continue;
      }
      long expiry = ValueLayout.expiryOf(e.getValue());
      if (expiry == 0 || expiry > now) {
        long[] db = counts[e.getKey()[0]];
        db[0]++;
        if (expiry != 0) {
          db[1]++;
          db[2] += expiry - now;
        }
      }
    }
    for (long[] db : counts) {
      db[2] = db[1] == 0 ? 0 : db[2] / db[1];
    }
    return counts;
  }

  /**
   * Returns its number of keys, those expired but not yet removed included, as Redis's DBSIZE: the
   * store's count (see {@link #counts()}).
   *
   * @param db the database
   */
  public long size(int db) {
    Cache<byte[], byte[]> current = cache;
    if (current instanceof FirstByteCounts counted && counted.countsKeysByFirstByte()) {
      return counted.keysStartingWith(db);
    }
    return walkCounts(current)[db][0];
  }

  /**
   * Removes every key of a database.
   *
   * @param db the database
   */
  public void flush(int db) {
    if (!logged) {
      cache.asMap().keySet().removeIf(k -> inDatabase(k, db));
    } else {
      flushLogged(db, () -> cache.asMap().keySet().removeIf(k -> inDatabase(k, db)));
    }
    if (openIfAny() != null) {
      open.dropAll(db);
    }
    observer.flushed(db);
  }

  /** Removes every key of every database. */
  public void flushAll() {
    if (!logged) {
      cache.invalidateAll();
    } else {
      flushLogged(-1, cache::invalidateAll);
    }
    if (openIfAny() != null) {
      open.dropAll(-1);
    }
    observer.flushed(-1);
  }

  /**
   * A flush with a log: under the shared lock (memcached's delayed flush_all runs on the scheduler,
   * without one) and every stripe, so that no single-key change interleaves with it and the one
   * record it makes orders it against every other change.
   */
  private void flushLogged(int db, Runnable flush) {
    Lock shared = lock.readLock();
    shared.lock();
    try {
      int held = 0;
      try {
        // In index order, as no other thread holds two stripes: no deadlock.
        for (; held < STRIPES; held++) {
          stripes[held].lock();
        }
        sink.begin();
        try {
          flush.run();
          sink.flush(db);
        } finally {
          sink.end();
        }
      } finally {
        for (int i = held - 1; i >= 0; i--) {
          stripes[i].unlock();
        }
      }
    } finally {
      shared.unlock();
    }
  }

  /**
   * Removes expired keys among the next {@code budget} keys of a walk that resumes where the
   * previous call stopped. Called by one thread at a time. Once a whole pass has found no key with
   * an expiry, calls return at once until a value with an expiry is stored again, so a keyspace
   * without expiring keys is not walked at all.
   *
   * @param budget how many keys to look at
   * @return how many expired keys were removed
   */
  public synchronized int sweepExpired(int budget) {
    try {
      return sweepSlice(budget);
    } finally {
      publishTtlSamples();
    }
  }

  /** Adds a key's remaining time to this sweep call's samples of its database (not a chunk's). */
  private void sampleTtl(byte[] storedKey, long remaining) {
    int db = storedKey[0];
    if (db >= 0 && db < DATABASES && remaining > 0) {
      ttlSampleSums[db] += remaining;
      ttlSamples[db]++;
    }
  }

  /**
   * Folds this sweep call's samples into each database's average remaining time as Redis's active
   * expiry cycle does: the first average as it is, then 49/50 of the last and 1/50 of the new.
   */
  private void publishTtlSamples() {
    for (int db = 0; db < DATABASES; db++) {
      if (ttlSamples[db] > 0) {
        long average = ttlSampleSums[db] / ttlSamples[db];
        long last = averageTtls.get(db);
        averageTtls.set(db, last == 0 ? average : last / 50 * 49 + average / 50);
        ttlSampleSums[db] = 0;
        ttlSamples[db] = 0;
      }
    }
  }

  /**
   * Returns the expiry sweep's estimate of a database's keys' average remaining time in
   * milliseconds (0 until it has seen one), as Redis's avg_ttl.
   */
  private long averageTtl(int db) {
    return averageTtls.get(db);
  }

  private int sweepSlice(int budget) {
    // A given (clustered) cache also holds values with an expiry written through other
    // members: without its member's count of them (which sees those too) it never goes quiet.
    if (quietAt >= 0 && (!given || member != null)) {
      if (expiringCount() == quietAt) {
        return 0;
      }
      quietAt = -1;
    }
    settle();
    int removed = 0;
    long now = now();
    for (int i = 0; i < budget; i++) {
      if (sweep == null || !sweep.hasNext()) {
        if (sweep != null && !passSawExpiring) {
          // A whole pass saw no expiring key: quiet until one is written. A write counted
          // after passStartWrites was read may have been missed by the pass; it makes the
          // count differ, so the sweep resumes.
          sweep = null;
          quietAt = passStartWrites;
          return removed;
        }
        passStartWrites = expiringCount();
        passSawExpiring = false;
        sweep = sweepWalk.get();
        if (!sweep.hasNext()) {
          sweep = null;
          quietAt = passStartWrites;
          return removed;
        }
      }
      Map.Entry<byte[], byte[]> e = sweep.next();
      long expiry = ValueLayout.expiryOf(e.getValue());
      if (expiry != 0) {
        passSawExpiring = true;
        sampleTtl(e.getKey(), expiry - now);
        if (expiry <= now && sweeps(e.getKey()) && cache.remove(e.getKey(), e.getValue())) {
          expired.increment();
          observer.expired(e.getKey());
          if (ChunkStore.isHeadValue(e.getValue())) {
            chunks.release(e.getKey(), e.getValue());
          }
          removed++;
        }
      }
    }
    return removed;
  }

  /** Returns whether the sweep is idle: its last whole pass saw no expiring key, none since. */
  synchronized boolean sweepIdle() {
    return quietAt >= 0 && expiringCount() == quietAt;
  }

  /**
   * Values with an expiry stored so far: this keyspace's writes, or (clustered) every such value
   * the member's store took, through whichever member.
   */
  private long expiringCount() {
    ClusterStore m = member;
    return m == null ? expiringWrites.sum() : m.expiringStored();
  }

  /** Whether the sweep removes this key: every key, or (clustered) those the member sweeps. */
  private boolean sweeps(byte[] stored) {
    ClusterStore m = member;
    return m == null || m.sweeps(stored);
  }

  /**
   * Returns the number of stored keys of every database, expired ones not yet removed included (the
   * cache's estimate; no walk, unlike {@link #counts()}).
   */
  public long estimatedSize() {
    return cache.estimatedSize();
  }

  /** Returns the bytes the cache reserves (pages, index, policy) and the open collections hold. */
  public long memoryUsed() {
    return cache.memoryUsed() + (open == null ? 0 : open.bytes());
  }

  /** Returns the bytes the cache reserves, the open collections' not counted. */
  long storeMemoryUsed() {
    return cache.memoryUsed();
  }

  /** Returns the byte bound. */
  public long maxMemory() {
    return maxMemory;
  }

  /**
   * Changes the byte bound: builds a cache of the new bound and copies every entry into it (the new
   * cache's policy evicts what no longer fits). The caller holds {@link #exclusive()}.
   *
   * @param bytes the new bound, at least 64 KiB
   */
  public void resize(long bytes) {
    if (given) {
      throw new IllegalStateException(
          "maxmemory cannot be changed while the server runs in a"
              + " cluster; restart the member with the new bound");
    }
    open.closeAll();
    open.budget(OpenCollections.defaultBudget(bytes));
    Cache<byte[], byte[]> next = build(bytes);
    Cache<byte[], byte[]> previous = cache;
    for (Map.Entry<byte[], byte[]> e : previous.asMap().entrySet()) {
      next.put(e.getKey(), e.getValue());
    }
    cache = next;
    maxMemory = bytes;
    synchronized (this) {
      sweep = null;
    }
    previous.close();
  }

  /** Returns keyspace statistics: hits, misses, expired keys, evicted keys. */
  public long[] stats() {
    return new long[] {hits.sum(), misses.sum(), expired.sum(), evicted.sum()};
  }

  /** Returns the counts of chunked collections' store traffic: chunk writes, bytes, reads. */
  public ChunkTraffic.Counts chunkTraffic() {
    return chunks.traffic().counts();
  }

  /** Resets the hit, miss, expired and evicted counters. */
  public void resetStats() {
    hits.reset();
    misses.reset();
    expired.reset();
    evicted.reset();
  }

  @Override
  public void close() {
    if (open != null) {
      open.shutdown();
    }
    cache.close();
  }

  /**
   * {@link KeyObserver#CREATED} if the observer wants to hear of made keys and the key holds no
   * live value now (a blind overwrite is about to write it), else 0.
   */
  private int createdFlag(byte[] stored) {
    return observer.wantsCreations() && liveOrRemove(stored) == null ? KeyObserver.CREATED : 0;
  }

  /** The stored bytes of a key's live value, or null; an expired value is removed and counted. */
  private byte[] liveOrRemove(byte[] stored) {
    byte[] bytes = cache.getIfPresent(stored);
    if (bytes == null) {
      return null;
    }
    if (expired(bytes)) {
      removeExpired(stored, bytes);
      return null;
    }
    return bytes;
  }

  private void removeExpired(byte[] stored, byte[] bytes) {
    try {
      if (cache.remove(stored, bytes)) {
        expired.increment();
        observer.expired(stored);
        if (ChunkStore.isHeadValue(bytes)) {
          chunks.release(stored, bytes);
        }
      }
    } catch (RuntimeException e) {
      if (!given) {
        throw e;
      }
      // A clustered cache refused (a minority side) or timed out: the read still answers
      // "absent", and the primary's sweep removes the value.
    }
  }

  private boolean expired(byte[] bytes) {
    long expiry = ValueLayout.expiryOf(bytes);
    return expiry != 0 && expiry <= now();
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  /**
   * Sizes the store's indexes for {@code keys} keys before recovery fills it, so that they do not
   * grow step by step (rehashing every key each time) while it does. Only while the keyspace is
   * empty and before {@link #attach}; does nothing for a keyspace over a clustered cache, once
   * {@link #store} handed its cache out, or once it holds a key.
   *
   * @param keys the keys recovery expects to store, 0 or more
   */
  public void presize(long keys) {
    if (given || handedOut || keys <= 0 || cache.estimatedSize() != 0) {
      return;
    }
    Cache<byte[], byte[]> previous = cache;
    cache = build(maxMemory, keys);
    synchronized (this) {
      sweep = null;
    }
    previous.close();
  }

  /**
   * Stores a value as recovery found it (a log record's, or a checkpoint item's with its fresh
   * version), without reporting it. Only before {@link #attach}.
   *
   * @param storedKey the stored key
   * @param storedValue the stored value
   */
  public void restorePut(byte[] storedKey, byte[] storedValue) {
    cache.put(storedKey, storedValue);
    if (ChunkKey.isChunkKey(storedKey) || ChunkStore.isHeadValue(storedValue)) {
      anyChunked = true;
    }
    if (ValueLayout.expiryOf(storedValue) != 0) {
      expiringWrites.increment();
    }
  }

  /**
   * Stores a batch of values as recovery found them, in order, without reporting them: what {@link
   * #restorePut} of each would leave, through the store's bulk path ({@link BulkRestore}, which
   * every cache this keyspace builds has; a cache given to it, which the log never restores into,
   * takes them one put each). Only before {@link #attach}. Several loading threads may call it at
   * once with batches of different keys.
   *
   * @param entries stored keys, each with its stored value
   * @param expiring how many of the values carry an expiry
   */
  public void restoreAll(EncodedEntries entries, int expiring) {
    if (cache instanceof BulkRestore bulk) {
      bulk.restore(entries);
    } else {
      byte[] b = entries.bytes();
      for (int e = 0; e < entries.size(); e++) {
        int k = entries.keyOffset(e);
        int v = k + entries.keyLength(e);
        cache.put(
            Arrays.copyOfRange(b, k, v), Arrays.copyOfRange(b, v, v + entries.valueLength(e)));
      }
    }
    // loading threads run this side by side: only ever set, never cleared
    if (!anyChunked && holdsChunkedList(entries)) {
      anyChunked = true;
    }
    expiringWrites.add(expiring);
  }

  /**
   * Whether a batch holds a list chunk or a chunked list's head, so that {@link #restoreSettle}
   * must walk the store; only a list's value is copied to look at its payload.
   */
  private static boolean holdsChunkedList(EncodedEntries entries) {
    byte[] b = entries.bytes();
    for (int e = 0; e < entries.size(); e++) {
      int k = entries.keyOffset(e);
      int v = k + entries.keyLength(e);
      if ((b[k] & ChunkKey.CHUNK_SPACE) != 0) {
        return true;
      }
      int type = b[v] & 0b1_0011;
      if ((type == ValueType.LIST.code()
              || type == ValueType.SET.code()
              || type == ValueType.HASH.code())
          && ChunkStore.isHeadValue(Arrays.copyOfRange(b, v, v + entries.valueLength(e)))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Removes a key while restoring, without reporting it.
   *
   * @param storedKey a stored key to remove, without reporting it
   */
  public void restoreDelete(byte[] storedKey) {
    cache.invalidate(storedKey);
  }

  /**
   * Returns the version of its value as restored so far, or -1 if it has none.
   *
   * @param storedKey a stored key
   */
  public long restoredVersion(byte[] storedKey) {
    byte[] current = cache.getIfPresent(storedKey);
    return current == null ? -1 : ValueLayout.versionOf(current);
  }

  /**
   * Empties a database while restoring, without reporting it.
   *
   * @param db a database to empty, -1 for all, without reporting it
   */
  public void restoreFlush(int db) {
    if (db < 0) {
      cache.invalidateAll();
    } else {
      cache.asMap().keySet().removeIf(k -> inDatabase(k, db));
    }
  }

  /** Whether a stored key is a key of the database or a chunk of one of its lists. */
  private static boolean inDatabase(byte[] storedKey, int db) {
    return storedKey[0] == db || storedKey[0] == (byte) (ChunkKey.CHUNK_SPACE | db);
  }

  /**
   * Makes the lists recovery restored whole: removes the chunks no list's head names (their list
   * was replaced or removed in records the log no longer holds, or after the checkpoint's walk saw
   * them) and the lists a chunk of which is missing (an eviction of the chunk was logged, and the
   * removal of its list was not). One walk of the store, only if recovery met a chunk. Only before
   * {@link #attach}.
   *
   * @return the entries removed
   */
  public long restoreSettle() {
    return anyChunked ? chunks.settleRestored() : 0;
  }

  /**
   * Makes every later version higher than {@code version}.
   *
   * @param version a version given out before
   * @throws IllegalStateException for a keyspace over a clustered cache (the cluster gives its
   *     versions)
   */
  public void versionsAbove(long version) {
    ownCounter().accumulateAndGet(version, Math::max);
  }

  /**
   * Returns the highest version given out so far.
   *
   * @throws IllegalStateException for a keyspace over a clustered cache
   */
  public long lastVersion() {
    return ownCounter().get();
  }

  /**
   * Takes a version no write will get: above every version given out so far, below every later one.
   * A checkpoint gives it to all its items.
   *
   * @return the version
   * @throws IllegalStateException for a keyspace over a clustered cache
   */
  public long reserveVersion() {
    return ownCounter().incrementAndGet();
  }

  private AtomicLong ownCounter() {
    if (counter == null) {
      throw new IllegalStateException("a clustered keyspace's versions come from its cluster");
    }
    return counter;
  }

  /**
   * Hands {@code action} every stored key and stored value, live or expired, in no particular order
   * (a checkpoint's walk). A key present throughout the walk is handed over with a value it held
   * during the walk, possibly more than once (each time with such a value); keys written during the
   * walk may or may not be seen. Over the store's own cache the walk holds up no writer and
   * allocates nothing per key ({@link BulkSnapshot}); over a cache given to the keyspace (a
   * cluster's), it walks the cache's map view.
   *
   * @param action given each entry as the stored key (from index 0) and the stored value right
   *     after it, in an array reused for the next entry; runs with no lock of the keyspace held
   */
  public void forEachStored(BulkSnapshot.EncodedEntryVisitor action) {
    if (cache instanceof BulkSnapshot snapshot) {
      snapshot.forEachEncoded(action);
      return;
    }
    byte[] scratch = new byte[0];
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      byte[] key = e.getKey();
      byte[] value = e.getValue();
      if (scratch.length < key.length + value.length) {
        scratch = new byte[Math.max(key.length + value.length, 2 * scratch.length)];
      }
      System.arraycopy(key, 0, scratch, 0, key.length);
      System.arraycopy(value, 0, scratch, key.length, value.length);
      action.entry(scratch, key.length, value.length);
    }
  }

  /**
   * The exclusive lock, bracketing its section as one group of the sink: the changes made while it
   * is held are reported as one atomic group when it is released.
   */
  private final class GroupedWriteLock implements Lock {
    private final ReentrantReadWriteLock.WriteLock write = lock.writeLock();

    @Override
    public void lock() {
      write.lock();
      sink.begin();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      write.lockInterruptibly();
      sink.begin();
    }

    @Override
    public boolean tryLock() {
      if (!write.tryLock()) {
        return false;
      }
      sink.begin();
      return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      if (!write.tryLock(time, unit)) {
        return false;
      }
      sink.begin();
      return true;
    }

    @Override
    public void unlock() {
      try {
        sink.end();
      } finally {
        write.unlock();
      }
    }

    /**
     * Refused, as {@link Lock#newCondition()} allows: awaiting a condition releases the lock in the
     * middle of its section, which would split the section's changes into two groups of the sink
     * and let another writer's changes fall between them.
     */
    @Override
    public Condition newCondition() {
      throw new UnsupportedOperationException("no conditions on the keyspace's lock");
    }
  }

  /**
   * Returns the stored key of a client's key: the database byte, then the key.
   *
   * @param db the database, 0 to 15
   * @param key the key
   */
  public static byte[] storedKey(int db, byte[] key) {
    if (db < 0 || db >= DATABASES) {
      throw new IllegalArgumentException("database " + db + " out of range");
    }
    byte[] stored = new byte[key.length + 1];
    stored[0] = (byte) db;
    System.arraycopy(key, 0, stored, 1, key.length);
    return stored;
  }

  /**
   * The outcome of {@link #update}.
   *
   * @param before the live value before, or null
   * @param after the value after, or null if absent
   * @param expiredBefore whether the update found an expired value (and so removed or replaced it)
   */
  public record Change(StoredValue before, StoredValue after, boolean expiredBefore) {
    /**
     * @param before the live value before, or null
     * @param after the value after, or null if absent
     */
    public Change(StoredValue before, StoredValue after) {
      this(before, after, false);
    }
  }
}
