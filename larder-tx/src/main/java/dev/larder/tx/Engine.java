package dev.larder.tx;

import dev.larder.Cache;
import dev.larder.CacheBuilder;
import dev.larder.codec.ByteSink;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.tx.internal.BlindWrite;
import dev.larder.tx.internal.CommitHistory;
import dev.larder.tx.internal.CommitRecord;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.internal.SnapshotRegistry;
import dev.larder.tx.internal.StoredValue;
import dev.larder.tx.internal.VersionTable;
import dev.larder.tx.spi.TxBackend;
import dev.larder.wal.Checkpoint;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogReplay;
import dev.larder.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The commit sequencer and multi-version read path shared by the caches of one {@link TxStore}.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>State.</b> Each cache is a core {@code Cache<byte[], byte[]>} whose values are {@link
 * StoredValue}s: the commit sequence, then the value's bytes. {@code visible} is the last commit
 * new snapshots include. Superseded versions live in the {@link VersionTable} while a snapshot may
 * need them; the {@link CommitHistory} keeps recent write sets for conflict checks.
 *
 * <p><b>Commit</b> (GemStone's commit token is {@code commitLock}): check the read and/or write set
 * against the history (any key written by a commit after the snapshot is a conflict); take sequence
 * {@code N}; for each write, record the key's current state in the version table, then change the
 * cache; append one log record; record the write set; publish {@code visible = N}; release the
 * lock; wait for the log under the fsync policy. Under {@code always}, {@code visible} is published
 * only after the force, so no one sees a commit that a power cut could still lose; its write set is
 * in the history at once, so a transaction that read the previous value still conflicts. Since the
 * log is forced in order, publishing {@code N} after its force also publishes every commit before
 * it, which was applied before it under the lock.
 *
 * <p><b>Reads</b> take no lock and never wait for a committer: read the cache; a stored sequence at
 * most the snapshot is the answer (everything up to the snapshot was applied before the snapshot
 * was published, so nothing newer at most the snapshot can be missing); otherwise the version table
 * holds the state valid at the snapshot, recorded before the cache changed.
 *
 * <p><b>Value dictionary.</b> With a dictionary, each addition is appended as its own record
 * (taking a sequence under the commit lock) from the dictionary's listener, before any commit that
 * writes the new id; checkpoints start with every addition so far. Recovery replays them into the
 * dictionary in order, so ids mean the same after a restart.
 *
 * <p><b>Failure.</b> A value too large for its cache (or any exception while applying) undoes the
 * writes already applied, restoring the recorded states, before the log hears of the commit. A log
 * failure after the append leaves the commit applied in memory but not durable: the store refuses
 * every later commit, and reopening decides from the disk.
 */
final class Engine implements TxBackend {

  static final byte[] REMOVED = TxBackend.REMOVED;

  /** Values at least this large take the slow path (far below any limit of log or cache). */
  private static final int FAST_PATH_MAX_BYTES = 1 << 26;

  final List<TxCacheSpec<?, ?>> specs;
  final List<Cache<byte[], byte[]>> caches = new ArrayList<>();

  /** Per cache: unbounded, so that a put can never be refused (the blind-write fast path). */
  private final boolean[] unbounded;

  final Isolation defaultIsolation;
  private final ReentrantLock commitLock = new ReentrantLock();
  private final AtomicLong visible = new AtomicLong();
  private final SnapshotRegistry snapshots = new SnapshotRegistry();
  private final CommitHistory history = new CommitHistory();
  private final VersionTable versions = new VersionTable();
  private final LongAdder commits = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final Object checkpointMutex = new Object();
  private long lastSequence;
  private WriteAheadLog log;
  private boolean publishAfterSync;
  private volatile RuntimeException failure;

  /** The blind write being applied on the fast path, if any; written under the commit lock. */
  private volatile BlindWrite announced;

  private final ValueDictionary dictionary;

  /** Every dictionary addition logged or recovered, in order; guarded by the commit lock. */
  private final List<ValueDictionary.Addition> additions = new ArrayList<>();

  Engine(List<TxCacheSpec<?, ?>> specs, Isolation defaultIsolation, ValueDictionary dictionary) {
    this.specs = List.copyOf(specs);
    this.defaultIsolation = defaultIsolation;
    this.dictionary = dictionary;
    this.unbounded = new boolean[specs.size()];
    for (TxCacheSpec<?, ?> spec : specs) {
      CacheBuilder<byte[], byte[]> builder = Cache.builder(Codecs.bytes(), Codecs.bytes());
      spec.settings().accept(builder);
      try {
        builder.unbounded();
        unbounded[caches.size()] = true;
      } catch (IllegalStateException boundAlreadySet) {
        // The spec chose a bound: keep it. Without one, a transactional cache is unbounded.
      }
      caches.add(builder.build());
    }
  }

  /** A replay target that loads recovered state straight into the caches. */
  LogReplay replay() {
    return new LogReplay() {
      @Override
      public void checkpointEntry(long checkpointSequence, byte[] entry) {
        ValueDictionary.Addition addition = CommitRecord.decodeAddition(entry, true);
        if (addition != null) {
          replayAddition(addition);
        } else {
          apply(CommitRecord.decodeEntry(entry));
        }
      }

      @Override
      public void record(long sequence, int type, byte[] payload) {
        if (type == CommitRecord.TYPE_COMMIT) {
          for (CommitRecord.Write w : CommitRecord.decode(payload)) {
            apply(w);
          }
        } else if (type == CommitRecord.TYPE_DICTIONARY) {
          replayAddition(CommitRecord.decodeAddition(payload, false));
        }
      }
    };
  }

  private void replayAddition(ValueDictionary.Addition addition) {
    if (dictionary == null) {
      throw new IllegalStateException(
          "the log holds value dictionary additions but the store "
              + "was built without a dictionary");
    }
    dictionary.apply(addition);
    additions.add(addition);
  }

  /**
   * Logs every later addition of the dictionary, each as its own record ahead of the commits that
   * use its id. Called once recovery has replayed the additions already logged.
   */
  private void logDictionary() {
    if (dictionary.size() != additions.size()) {
      throw new IllegalStateException(
          "the value dictionary holds "
              + dictionary.size()
              + " values but the log only "
              + additions.size()
              + ": give the store a fresh "
              + "dictionary, used by nothing else before the store is built");
    }
    dictionary.addListener(this::logAddition);
  }

  /**
   * Runs under the dictionary's lock (its listener contract), then takes the commit lock: the
   * commit path never takes the dictionary's lock while holding the commit lock (it encodes nothing
   * under it), so the order is fixed. The record needs no force of its own: every commit that uses
   * the id is appended after it, and forcing that commit forces the log up to it.
   */
  private void logAddition(ValueDictionary.Addition addition) {
    commitLock.lock();
    try {
      checkUsable();
      long n = lastSequence + 1;
      log.append(n, CommitRecord.TYPE_DICTIONARY, CommitRecord.encodeAddition(addition));
      lastSequence = n;
      additions.add(addition);
    } finally {
      commitLock.unlock();
    }
  }

  private void apply(CommitRecord.Write w) {
    if (w.cache() < 0 || w.cache() >= caches.size()) {
      throw new IllegalStateException(
          "log names cache index "
              + w.cache()
              + " but the store "
              + "declares "
              + caches.size()
              + " caches");
    }
    if (w.stored() == null) {
      caches.get(w.cache()).invalidate(w.key());
    } else {
      caches.get(w.cache()).put(w.key(), w.stored());
    }
  }

  void attach(WriteAheadLog wal) {
    this.log = wal;
    this.publishAfterSync = wal.config().policy() instanceof FsyncPolicy.Always;
    this.lastSequence = wal.recovery().lastSequence();
    this.visible.set(lastSequence);
    if (dictionary != null) {
      logDictionary();
    }
  }

  @Override
  public WriteAheadLog log() {
    return log;
  }

  /**
   * Waits until new snapshots include commit {@code sequence}, the log fails, the time is up or the
   * thread is interrupted (its flag kept): what a retried transaction needs before it can succeed.
   * Parks in short steps; used only by writers retrying after a conflict, never by a reader. An
   * interrupted thread returns at once, since {@code parkNanos} would not park it and the wait
   * would spin until the deadline.
   */
  @Override
  public void awaitVisible(long sequence, long maxNanos) {
    long deadline = System.nanoTime() + maxNanos;
    while (visible.get() < sequence
        && failure == null
        && System.nanoTime() < deadline
        && !Thread.currentThread().isInterrupted()) {
      java.util.concurrent.locks.LockSupport.parkNanos(50_000);
    }
  }

  @Override
  public Isolation defaultIsolation() {
    return defaultIsolation;
  }

  @Override
  public SnapshotRegistry.Snapshot begin() {
    return snapshots.register(visible, () -> announced);
  }

  @Override
  public void end(long snapshot) {
    snapshots.release(snapshot);
  }

  @Override
  public int valueOffset(byte[] stored) {
    return StoredValue.valueOffset(stored);
  }

  @Override
  public long estimatedSize(int index) {
    return caches.get(index).estimatedSize();
  }

  @Override
  public long memoryUsed(int index) {
    return caches.get(index).memoryUsed();
  }

  /**
   * Returns the stored bytes valid at the snapshot, or null if absent (or forgotten).
   *
   * @param ref a key
   * @param snapshot the reader's snapshot
   */
  @Override
  public byte[] read(KeyRef ref, long snapshot) {
    byte[] stored = caches.get(ref.cache()).getIfPresent(ref.key());
    if (stored != null && StoredValue.sequence(stored) <= snapshot) {
      return stored;
    }
    VersionTable.Version v = versions.find(ref, snapshot);
    if (v != null) {
      return v.stored();
    }
    if (stored == null) {
      return null;
    }
    // A newer version with no recorded predecessor: only a snapshot that was never registered
    // can get here, which would be a bug in this class.
    throw new IllegalStateException("no version of " + ref + " for snapshot " + snapshot);
  }

  /**
   * Commits a write set.
   *
   * @return the commit's sequence
   */
  @Override
  public long commit(
      long snapshot, Isolation isolation, Set<KeyRef> reads, SequencedMap<KeyRef, byte[]> writes) {
    Set<KeyRef> checked = new LinkedHashSet<>(writes.keySet());
    if (isolation == Isolation.SERIALIZABLE) {
      checked.addAll(reads);
    }
    long n;
    long ticket = 0;
    commitLock.lock();
    try {
      checkUsable();
      List<TransactionConflictException.ConflictingKey> conflicting = conflicts(checked, snapshot);
      if (!conflicting.isEmpty()) {
        conflicts.increment();
        throw new TransactionConflictException(conflicting, snapshot);
      }
      n = lastSequence + 1;
      List<CommitRecord.Write> record = applyAll(n, writes);
      if (log != null) {
        try {
          ticket = log.append(n, CommitRecord.TYPE_COMMIT, CommitRecord.encode(record));
        } catch (RuntimeException e) {
          undo(n, writes);
          throw e;
        }
      }
      finishLocked(n, writes.keySet());
    } finally {
      commitLock.unlock();
    }
    return acknowledge(n, ticket);
  }

  /**
   * Commits one blind write (a put, or a removal when {@code value} is {@link #REMOVED}) at the
   * commit point: the path of {@link TxCache#put} and {@link TxCache#remove}. It reads nothing, so
   * it needs no snapshot and no conflict check (it is the serial transaction "write k" placed at
   * sequence {@code N}). While any snapshot is registered it records the superseded state and its
   * write set exactly as {@link #commit} does, so open transactions still read their snapshot and
   * still conflict; while none is, it takes the fast path ({@link #blindFast}).
   *
   * @return the commit's sequence
   */
  @Override
  public long commitBlind(KeyRef key, ByteSink value) {
    long n;
    long ticket = 0;
    commitLock.lock();
    try {
      checkUsable();
      n = lastSequence + 1;
      if (!publishAfterSync
          && unbounded[key.cache()]
          && (value == null || value.size() < FAST_PATH_MAX_BYTES)
          && snapshots.registered() == 0) {
        ticket = blindFast(n, key, value);
      } else {
        // The value is copied once, into the stored bytes, and they go to the log as they are.
        byte[] stored = value == null ? null : StoredValue.wrap(n, value.array(), value.size());
        applyStored(n, key, stored);
        if (log != null) {
          try {
            ticket = log.append(n, CommitRecord.TYPE_COMMIT, new BlindWrite(n, key, stored));
          } catch (RuntimeException e) {
            undoOne(n, key);
            throw e;
          }
        }
        finishLocked(n, List.of(key));
      }
    } finally {
      commitLock.unlock();
    }
    return acknowledge(n, ticket);
  }

  /**
   * The blind-write fast path, under the commit lock, when no snapshot was registered: change the
   * cache without reading the superseded value and without recording the key in the history, since
   * no registered snapshot can need either. A transaction may begin meanwhile (registration takes
   * no commit lock), so:
   *
   * <ol>
   *   <li>the log record is appended first (a failure there changes nothing), so that what follows
   *       cannot fail (the cache is unbounded and the value far below its limit);
   *   <li>the write is announced (a volatile write), then the registered count is read again (a
   *       volatile read); a registering reader raises the count, then reads the announcement. So
   *       either this path sees the reader, and falls back to recording the superseded state and
   *       the write set as the slow path does, or the reader sees the announcement and takes the
   *       commit's sequence as its snapshot, with the write as an overlay for its key;
   *   <li>the sequence is published before the announcement is withdrawn, so a reader that finds no
   *       announcement afterwards reads a visible sequence that includes the commit.
   * </ol>
   *
   * Used only when commits are published under the lock (not under {@code always}, which publishes
   * after the force).
   *
   * @return the log ticket (0 without a log)
   */
  private long blindFast(long n, KeyRef key, ByteSink value) {
    byte[] stored = value == null ? null : StoredValue.wrap(n, value.array(), value.size());
    BlindWrite write = new BlindWrite(n, key, stored);
    long ticket = 0;
    if (log != null) {
      ticket = log.append(n, CommitRecord.TYPE_COMMIT, write);
    }
    lastSequence = n;
    announced = write;
    try {
      if (snapshots.registered() == 0) {
        Cache<byte[], byte[]> cache = caches.get(key.cache());
        if (stored == null) {
          cache.invalidate(key.key());
        } else {
          cache.put(key.key(), stored);
        }
        visible.accumulateAndGet(n, Math::max);
        if (history.size() > 0) {
          history.trim(snapshots.horizon(visible), versions);
        }
      } else {
        applyStored(n, key, stored);
        finishLocked(n, List.of(key));
      }
    } catch (RuntimeException | Error e) {
      // Logged and announced but not applied: in doubt, as after a failed force.
      RuntimeException doubt =
          new IllegalStateException(
              "commit "
                  + n
                  + " is in doubt: its "
                  + "log record was appended but the cache refused the write; the store accepts no more "
                  + "commits (reopen to recover)",
              e);
      failure = doubt;
      throw doubt;
    } finally {
      announced = null;
    }
    return ticket;
  }

  /** Under the commit lock, after the append: the commit's sequence is taken and published. */
  private void finishLocked(long n, java.util.Collection<KeyRef> written) {
    lastSequence = n;
    history.record(n, written);
    if (!publishAfterSync) {
      visible.accumulateAndGet(n, Math::max);
    }
    history.trim(snapshots.horizon(visible), versions);
  }

  /** After the commit lock: waits for the log under the policy, then publishes {@code n}. */
  private long acknowledge(long n, long ticket) {
    if (log != null) {
      try {
        log.sync(ticket);
      } catch (RuntimeException e) {
        failure = e;
        // The I/O error's own message names the file and the operation that failed.
        String why =
            e instanceof java.io.UncheckedIOException io
                ? io.getCause().getMessage()
                : e.getMessage();
        throw new IllegalStateException(
            "commit "
                + n
                + " is in doubt: the log failed while "
                + "making it durable ("
                + why
                + "); the store accepts no more commits (reopen to "
                + "recover)",
            e);
      }
      visible.accumulateAndGet(n, Math::max);
    }
    commits.increment();
    return n;
  }

  private List<TransactionConflictException.ConflictingKey> conflicts(
      Set<KeyRef> keys, long snapshot) {
    List<TransactionConflictException.ConflictingKey> found = new ArrayList<>();
    for (KeyRef k : keys) {
      long last = history.lastWrite(k);
      if (last > snapshot) {
        found.add(
            new TransactionConflictException.ConflictingKey(
                specs.get(k.cache()).name(), decodeKey(k), last));
      }
    }
    return found;
  }

  private Object decodeKey(KeyRef k) {
    try {
      return specs.get(k.cache()).keyCodec().decode(new dev.larder.codec.ByteSource(k.key()));
    } catch (RuntimeException e) {
      return k.toString();
    }
  }

  private List<CommitRecord.Write> applyAll(long n, SequencedMap<KeyRef, byte[]> writes) {
    List<CommitRecord.Write> record = new ArrayList<>(writes.size());
    try {
      for (Map.Entry<KeyRef, byte[]> w : writes.entrySet()) {
        record.add(applyOne(n, w.getKey(), w.getValue()));
      }
    } catch (RuntimeException e) {
      undo(n, writes);
      throw e;
    }
    return record;
  }

  /**
   * Records the key's current state as valid until {@code n}, then changes the cache. On failure (a
   * value too large for its cache) the key is as it was, and nothing is recorded.
   */
  @SuppressWarnings("ReferenceEquality") // REMOVED is a sentinel array, told apart by identity
  private CommitRecord.Write applyOne(long n, KeyRef k, byte[] value) {
    return applyStored(n, k, value == REMOVED ? null : StoredValue.wrap(n, value));
  }

  /** {@link #applyOne} of stored bytes (null: a removal). */
  private CommitRecord.Write applyStored(long n, KeyRef k, byte[] stored) {
    Cache<byte[], byte[]> cache = caches.get(k.cache());
    byte[] old = cache.getIfPresent(k.key());
    long start = old != null ? StoredValue.sequence(old) : history.lastWrite(k);
    versions.preserve(k, new VersionTable.Version(start, n, old));
    try {
      if (stored == null) {
        cache.invalidate(k.key());
      } else {
        cache.put(k.key(), stored);
      }
    } catch (RuntimeException e) {
      undoOne(n, k);
      throw e;
    }
    return new CommitRecord.Write(k.cache(), k.key(), stored);
  }

  /** Puts back the states commit {@code n} recorded before changing each key. */
  private void undo(long n, SequencedMap<KeyRef, byte[]> writes) {
    for (KeyRef k : writes.keySet()) {
      undoOne(n, k);
    }
  }

  private void undoOne(long n, KeyRef k) {
    VersionTable.Version before = versions.find(k, n - 1);
    if (before != null && before.end() == n) {
      Cache<byte[], byte[]> cache = caches.get(k.cache());
      if (before.stored() == null) {
        cache.invalidate(k.key());
      } else {
        cache.put(k.key(), before.stored());
      }
    }
    versions.forget(k, n);
  }

  /**
   * Writes a checkpoint of every cache as of the last commit, without stopping writers.
   *
   * @return the checkpoint's sequence
   */
  @Override
  public long checkpoint() {
    if (log == null) {
      throw new IllegalStateException("this store has no persistence directory");
    }
    synchronized (checkpointMutex) {
      Checkpoint ck;
      long c;
      List<ValueDictionary.Addition> dictionaryAtC;
      commitLock.lock();
      try {
        checkUsable();
        c = lastSequence;
        dictionaryAtC = List.copyOf(additions);
        snapshots.registerAt(c);
        try {
          ck = log.beginCheckpoint(c);
        } catch (RuntimeException e) {
          snapshots.release(c);
          throw e;
        }
      } finally {
        commitLock.unlock();
      }
      try (ck) {
        for (ValueDictionary.Addition addition : dictionaryAtC) {
          ck.add(CommitRecord.additionEntry(addition));
        }
        for (int i = 0; i < caches.size(); i++) {
          int cache = i;
          // Entries written at or before c are the state at c; newer or removed ones were
          // recorded in the version table (held for snapshot c) before they changed.
          caches
              .get(i)
              .asMap()
              .forEach(
                  (key, stored) -> {
                    if (StoredValue.sequence(stored) <= c) {
                      ck.add(CommitRecord.entry(cache, key, stored));
                    }
                  });
          versions.forEachAt(i, c, (key, stored) -> ck.add(CommitRecord.entry(cache, key, stored)));
        }
        ck.complete();
      } finally {
        snapshots.release(c);
      }
      return c;
    }
  }

  @Override
  public TxStats stats() {
    commitLock.lock();
    try {
      return new TxStats(
          commits.sum(),
          conflicts.sum(),
          visible.get(),
          snapshots.size(),
          history.size(),
          versions.keys());
    } finally {
      commitLock.unlock();
    }
  }

  private void checkUsable() {
    RuntimeException f = failure;
    if (f != null) {
      throw new IllegalStateException(
          "the store's log failed; it accepts no more commits " + "(reopen to recover)", f);
    }
  }

  @Override
  public void close() {
    try {
      if (log != null) {
        log.close();
      }
    } finally {
      for (Cache<byte[], byte[]> c : caches) {
        c.close();
      }
    }
  }
}
