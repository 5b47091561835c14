package dev.larder.tx;

import dev.larder.codec.ByteSink;
import dev.larder.codec.ValueDictionary;
import dev.larder.tx.internal.KeyRef;
import dev.larder.tx.spi.TxBackend;
import dev.larder.tx.spi.TxStores;
import dev.larder.wal.FileLayer;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogFile;
import dev.larder.wal.LogGapException;
import dev.larder.wal.LogStats;
import dev.larder.wal.LogStatus;
import dev.larder.wal.RecoveryReport;
import dev.larder.wal.WalConfig;
import dev.larder.wal.WriteAheadLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A group of caches with optimistic multi-version transactions over all of them, optionally made
 * durable in a log directory shared by the group.
 *
 * <pre>{@code
 * TxCacheSpec<String, Long> ACCOUNTS =
 *     TxCacheSpec.of("accounts", Codecs.strings(), Codecs.longs());
 * try (TxStore store = TxStore.builder().cache(ACCOUNTS).persistence(dir).build()) {
 *   TxCache<String, Long> accounts = store.cache(ACCOUNTS);
 *   store.inTransaction(tx -> {
 *     long a = tx.get(accounts, "a");
 *     tx.put(accounts, "a", a - 10);
 *     tx.put(accounts, "b", tx.get(accounts, "b") + 10);
 *     return null;
 *   });
 * }
 * }</pre>
 *
 * <p><b>Isolation</b>: see {@link Isolation}; {@link Isolation#SERIALIZABLE} unless the builder
 * says otherwise. Readers never lock against writers and never see part of a commit.
 *
 * <p><b>Durability</b> (with {@link Builder#persistence}): each commit appends one log record and
 * is acknowledged (its {@code commit()} returns) as the {@link FsyncPolicy} says. Checkpoints run
 * in the background every {@link Builder#checkpointEvery} without stopping writers, and delete the
 * log segments they cover. Building a store on an existing directory recovers it: the last complete
 * checkpoint, then the log after it ({@link #recovery()} reports what was found). The directory
 * holds a lock file: a second store on it, in any process, fails to build.
 *
 * <p><b>Eviction and expiry</b> keep working: each cache is a core Larder cache of bytes with the
 * bounds its {@link TxCacheSpec} sets. An evicted or expired entry is forgotten as by any cache
 * (transactions that begin afterwards, and first reads in older ones, see it absent; a checkpoint
 * taken afterwards leaves it out). Forgetting is not a transaction and is not logged; a cache that
 * is the durable home of data should not be bounded below its data, nor expire it.
 *
 * <p>Thread-safe.
 */
public final class TxStore implements AutoCloseable {

  /** Attempts of the single-operation transactions of {@link TxCache}. */
  public static final int SINGLE_OPERATION_ATTEMPTS = 1000;

  /** Attempts of {@link #inTransaction(TransactionBody)}. */
  public static final int DEFAULT_ATTEMPTS = 32;

  private static final String MANIFEST = "caches";

  static {
    TxStores.register(TxStore::new);
  }

  private final TxBackend engine;
  private final Encoding encoding;
  private final RecoveryReport recovery;
  private final Map<String, TxCache<?, ?>> caches = new LinkedHashMap<>();
  private final ScheduledExecutorService checkpointer;
  private volatile boolean closed;

  /** A store over another engine (larder-cluster's), which checkpoints and recovers itself. */
  private TxStore(List<TxCacheSpec<?, ?>> specs, TxBackend backend) {
    this.engine = Objects.requireNonNull(backend, "backend");
    this.encoding = new Encoding(specs);
    declare(specs);
    this.checkpointer = null;
    this.recovery = backend.log() == null ? null : backend.log().recovery();
  }

  private TxStore(Builder builder) throws IOException {
    Engine engine = new Engine(builder.specs, builder.isolation, builder.dictionary);
    this.engine = engine;
    this.encoding = new Encoding(builder.specs);
    declare(builder.specs);
    if (builder.wal == null) {
      this.checkpointer = null;
      this.recovery = null;
      return;
    }
    List<String> names = builder.specs.stream().map(TxCacheSpec::name).toList();
    try {
      String logMissing = checkManifest(builder.wal, names) ? missingLog(builder.wal) : null;
      WriteAheadLog log = WriteAheadLog.open(builder.wal, engine.replay());
      engine.attach(log);
      recovery = logMissing == null ? log.recovery() : withProblem(log.recovery(), logMissing);
      writeManifest(builder.wal, names);
    } catch (IOException | RuntimeException e) {
      engine.close();
      throw e;
    }
    this.checkpointer = startCheckpoints(builder.checkpointEvery);
  }

  private void declare(List<TxCacheSpec<?, ?>> specs) {
    for (int i = 0; i < specs.size(); i++) {
      TxCacheSpec<?, ?> spec = specs.get(i);
      caches.put(spec.name(), new TxCache<>(this, spec, i));
    }
  }

  // The task's future is not kept: the task catches what it throws (a periodic task that throws
  // is never run again), and close() stops it by shutting the executor down.
  @SuppressWarnings("FutureReturnValueIgnored")
  private ScheduledExecutorService startCheckpoints(Duration period) {
    long every = period.toMillis();
    if (every <= 0) {
      return null;
    }
    ScheduledExecutorService s =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "larder-tx-checkpoint");
              t.setDaemon(true);
              return t;
            });
    s.scheduleWithFixedDelay(this::backgroundCheckpoint, every, every, TimeUnit.MILLISECONDS);
    return s;
  }

  /** Returns a builder with no caches, serializable isolation and no persistence. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns its cache.
   *
   * @param spec a spec given to the builder
   * @param <K> key type
   * @param <V> value type
   * @throws IllegalArgumentException if the store declares no cache of that name, or under a
   *     different spec
   */
  @SuppressWarnings("unchecked")
  public <K, V> TxCache<K, V> cache(TxCacheSpec<K, V> spec) {
    TxCache<?, ?> cache = caches.get(spec.name());
    if (cache == null) {
      throw new IllegalArgumentException(
          "this store declares no cache " + spec.name() + "; it declares " + caches.keySet());
    }
    if (!cache.spec().equals(spec)) {
      // a spec's settings are a lambda, equal only to itself: a spec built again with
      // settings is another spec even if it reads the same
      throw new IllegalArgumentException(
          "cache "
              + spec.name()
              + " was declared with another"
              + " spec (its codecs or settings differ); pass the spec given to the builder");
    }
    return (TxCache<K, V>) cache;
  }

  /** Returns a transaction at the store's default isolation; close it (try-with-resources). */
  public Transaction begin() {
    return begin(engine.defaultIsolation());
  }

  /**
   * Returns a new transaction.
   *
   * @param isolation the isolation level
   */
  public Transaction begin(Isolation isolation) {
    checkOpen();
    return new Transaction(this, engine, Objects.requireNonNull(isolation, "isolation"));
  }

  /**
   * Runs {@code body} in a transaction and commits it, re-running it from the start on {@link
   * TransactionConflictException}, up to {@link #DEFAULT_ATTEMPTS} times.
   *
   * @param body the work; if it commits or rolls back itself, the helper leaves it so
   * @param <R> result type
   * @return the body's result from the attempt that committed
   * @throws TransactionConflictException from the last attempt if every attempt conflicted
   */
  public <R> R inTransaction(TransactionBody<R> body) {
    return inTransaction(engine.defaultIsolation(), DEFAULT_ATTEMPTS, body);
  }

  /**
   * As {@link #inTransaction(TransactionBody)} with an attempt limit.
   *
   * @param maxAttempts at least 1
   * @param body the work
   * @param <R> result type
   * @return the body's result
   */
  public <R> R inTransaction(int maxAttempts, TransactionBody<R> body) {
    return inTransaction(engine.defaultIsolation(), maxAttempts, body);
  }

  /**
   * Runs {@code body} in a transaction of the given isolation, committing and retrying on conflict:
   * before each new attempt it waits until the commits it collided with are visible (under {@code
   * always}, after their force; at most 10 s), then pauses a short random time. Any other exception
   * rolls back and propagates at once.
   *
   * @param isolation the isolation level
   * @param maxAttempts at least 1
   * @param body the work
   * @param <R> result type
   * @return the body's result
   * @throws TransactionConflictException from the last attempt if every attempt conflicted
   */
  public <R> R inTransaction(Isolation isolation, int maxAttempts, TransactionBody<R> body) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    Objects.requireNonNull(body, "body");
    for (int attempt = 1; ; attempt++) {
      try (Transaction tx = begin(isolation)) {
        R result = body.run(tx);
        if (tx.isActive()) {
          tx.commit();
        }
        return result;
      } catch (TransactionConflictException e) {
        if (attempt >= maxAttempts) {
          throw e;
        }
        // A new attempt can only succeed once its snapshot includes the commits it collided
        // with: under `always` they become visible only after their force, and retrying before
        // that conflicts again at once (a busy disk used up every attempt that way).
        engine.awaitVisible(latestConflict(e), VISIBILITY_WAIT_NANOS);
        // Back off a little so that the transactions that collided do not collide again.
        LockSupport.parkNanos(
            ThreadLocalRandom.current().nextLong(1_000L << Math.min(attempt, 10)));
      }
    }
  }

  /** The longest a retry waits for the commits it collided with to become visible. */
  private static final long VISIBILITY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static long latestConflict(TransactionConflictException e) {
    long latest = 0;
    for (TransactionConflictException.ConflictingKey k : e.keys()) {
      latest = Math.max(latest, k.committedAt());
    }
    return latest;
  }

  /**
   * Writes a checkpoint now (writers carry on), deleting the log segments it covers.
   *
   * @return the sequence the checkpoint holds
   * @throws IllegalStateException if the store has no persistence
   */
  public long checkpoint() {
    checkOpen();
    return engine.checkpoint();
  }

  /** Returns what recovery found when the store was built, if it has persistence. */
  public Optional<RecoveryReport> recovery() {
    return Optional.ofNullable(recovery);
  }

  /** Returns the log's counters (commits per force among them), if it has persistence. */
  public Optional<LogStats> logStats() {
    return Optional.ofNullable(engine.log()).map(WriteAheadLog::stats);
  }

  /**
   * Returns the log's status (directory, fsync policy, last sequence, commits per force, last
   * checkpoint), if the store has persistence; what larder-http's console shows as {@code
   * directory.section("log", () -> store.logStatus().orElseThrow().figures())}.
   */
  public Optional<LogStatus> logStatus() {
    return Optional.ofNullable(engine.log()).map(LogStatus::of);
  }

  /** Returns transaction counters. */
  public TxStats stats() {
    return engine.stats();
  }

  /** Stops checkpoints, forces and closes the log, releases the lock and every cache. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (checkpointer != null) {
      checkpointer.shutdown();
      try {
        checkpointer.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    engine.close();
  }

  TxBackend engine() {
    return engine;
  }

  Encoding encoding() {
    return encoding;
  }

  /**
   * A put ({@code value} non-null) or removal outside any transaction: one blind write at the
   * commit point, which never conflicts.
   *
   * @return its commit sequence
   */
  <K, V> long commitBlind(TxCache<K, V> cache, K key, V value) {
    checkOpen();
    check(cache);
    byte[] keyBytes = encoding.key(cache.index(), Objects.requireNonNull(key, "key"));
    // Encoded last, into this thread's scratch sink: copied once, into the stored bytes.
    ByteSink valueBytes = value == null ? null : encoding.valueToScratch(cache.index(), value);
    return engine.commitBlind(new KeyRef(cache.index(), keyBytes), valueBytes);
  }

  void check(TxCache<?, ?> cache) {
    if (cache.store() != this) {
      throw new IllegalArgumentException(cache + " belongs to another store");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }

  private void backgroundCheckpoint() {
    try {
      if (!closed) {
        engine.checkpoint();
      }
    } catch (RuntimeException e) {
      // The log still holds everything; the next round tries again. Report it where it is seen.
      System.getLogger(TxStore.class.getName())
          .log(System.Logger.Level.WARNING, "background checkpoint failed", e);
    }
  }

  /** Records the caches' order; names the file if that fails (a full disk, say). */
  private static void writeManifest(WalConfig wal, List<String> names) throws IOException {
    Path file = wal.directory().resolve(MANIFEST);
    try {
      wal.files().writeAtomically(file, String.join("\n", names).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IOException(
          "cannot write the list of caches "
              + file
              + " (through "
              + file.getFileName()
              + ".tmp): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A directory with a list of caches was opened by a store before, and so holds a log segment or a
   * checkpoint (the log creates its first segment before the list is written, and a checkpoint
   * never deletes the segment it starts). With neither, every log file was removed, which the log
   * alone cannot tell from a new directory: refused, or under salvage reported.
   *
   * @return null if the log is there, else the problem to report under salvage
   * @throws LogGapException if every log file is missing and salvage is off
   */
  private static String missingLog(WalConfig wal) throws IOException {
    for (String name : wal.files().list(wal.directory())) {
      if ((name.startsWith("log-") && name.endsWith(".wal"))
          || (name.startsWith("checkpoint-") && name.endsWith(".ckp"))) {
        return null;
      }
    }
    Path list = wal.directory().resolve(MANIFEST);
    String detail =
        "every log segment is missing, and there is no checkpoint, though "
            + list
            + " says a store was opened here: any commits lost";
    if (!wal.salvage()) {
      throw new LogGapException(
          wal.directory(),
          "log-0000000000000001.wal",
          detail + " (to " + "start the store afresh, delete " + list + " too)");
    }
    return "salvage: " + detail + "; opened without them";
  }

  private static RecoveryReport withProblem(RecoveryReport r, String problem) {
    List<String> problems = new ArrayList<>(r.problems());
    problems.addFirst(problem);
    return new RecoveryReport(
        r.checkpointSequence(),
        r.checkpointEntries(),
        r.recordsReplayed(),
        r.lastSequence(),
        r.bytesDropped(),
        problems,
        r.recoveryNanos());
  }

  /** Returns true if the directory has a list of caches (a store was opened there before). */
  private static boolean checkManifest(WalConfig wal, List<String> names) throws IOException {
    FileLayer files = wal.files();
    if (!files.list(wal.directory()).contains(MANIFEST)) {
      return false;
    }
    byte[] bytes;
    Path path = wal.directory().resolve(MANIFEST);
    try (LogFile file = files.open(path)) {
      bytes = new byte[(int) file.size()];
      file.read(0, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new IOException("cannot read the list of caches " + path + ": " + e.getMessage(), e);
    }
    List<String> recorded =
        bytes.length == 0
            ? List.of()
            : Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n"));
    if (recorded.size() > names.size() || !names.subList(0, recorded.size()).equals(recorded)) {
      throw new IllegalStateException(
          "directory "
              + wal.directory()
              + " holds caches "
              + recorded
              + " but this store declares "
              + names
              + " (new caches may only be added at "
              + "the end)");
    }
    return true;
  }

  /** Builds a {@link TxStore}. Not thread-safe. */
  public static final class Builder {
    private final List<TxCacheSpec<?, ?>> specs = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private Isolation isolation = Isolation.SERIALIZABLE;
    private WalConfig wal;
    private Duration checkpointEvery = Duration.ofMinutes(1);
    private ValueDictionary dictionary;

    private Builder() {}

    /**
     * Declares a cache. With persistence, caches are identified in the log by their order, which is
     * recorded in the directory: a reopened store must declare the same caches in the same order,
     * and may add new ones after them.
     *
     * @param spec the cache
     * @return this
     * @throws IllegalArgumentException if the name is taken
     */
    public Builder cache(TxCacheSpec<?, ?> spec) {
      if (!names.add(spec.name())) {
        throw new IllegalArgumentException("duplicate cache name " + spec.name());
      }
      specs.add(spec);
      return this;
    }

    /**
     * Returns this.
     *
     * @param level the isolation of {@link TxStore#begin()} and of single operations
     */
    public Builder isolation(Isolation level) {
      this.isolation = Objects.requireNonNull(level, "level");
      return this;
    }

    /**
     * Makes the store durable in {@code directory} with fsync {@code always}.
     *
     * @param directory created if absent
     * @return this
     */
    public Builder persistence(Path directory) {
      return persistence(WalConfig.of(directory));
    }

    /**
     * Makes the store durable with full control of the log.
     *
     * @param config the log's configuration
     * @return this
     */
    public Builder persistence(WalConfig config) {
      this.wal = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Returns this.
     *
     * @param policy the fsync policy (persistence must be set first)
     */
    public Builder fsync(FsyncPolicy policy) {
      if (wal == null) {
        throw new IllegalStateException("set persistence(directory) before fsync");
      }
      wal = wal.withPolicy(policy);
      return this;
    }

    /**
     * Logs and checkpoints the additions of the value dictionary that the caches' codecs substitute
     * through, so that ids mean the same after a restart. Pass a fresh dictionary (with its
     * substituting codecs made, but nothing encoded yet): on a reopen, recovery replays the logged
     * additions into it before anything else. Without persistence this does nothing.
     *
     * @param valueDictionary the dictionary
     * @return this
     */
    public Builder dictionary(ValueDictionary valueDictionary) {
      this.dictionary = Objects.requireNonNull(valueDictionary, "valueDictionary");
      return this;
    }

    /**
     * Returns this.
     *
     * @param period time between background checkpoints; zero turns them off (then call {@link
     *     TxStore#checkpoint()} yourself, or the log grows without bound)
     */
    public Builder checkpointEvery(Duration period) {
      if (period.isNegative()) {
        throw new IllegalArgumentException("negative checkpoint period: " + period);
      }
      this.checkpointEvery = period;
      return this;
    }

    /**
     * Builds the store, recovering its directory if it has one.
     *
     * @return the store
     * @throws IllegalArgumentException if no cache was declared
     * @throws dev.larder.wal.LogDirectoryLockedException if the directory is in use
     * @throws dev.larder.wal.LogCorruptedException if recovery meets damage before the log's tail
     *     and salvage is off
     * @throws dev.larder.wal.LogGapException if a log segment or the checkpoint is missing from the
     *     directory and salvage is off
     * @throws UncheckedIOException if the directory cannot be read or written; the message names
     *     the file and the operation
     */
    public TxStore build() {
      if (specs.isEmpty()) {
        throw new IllegalArgumentException("declare at least one cache");
      }
      try {
        return new TxStore(this);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot open the store in " + wal.directory() + ": " + e.getMessage(), e);
      }
    }
  }
}
