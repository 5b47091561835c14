package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.ChangeSink;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.wal.Checkpoint;
import dev.larder.wal.FileLayer;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogStats;
import dev.larder.wal.RecoveryReport;
import dev.larder.wal.WalConfig;
import dev.larder.wal.WriteAheadLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The server's durable log: a {@code larder-wal} directory that every change of the keyspace is
 * appended to (as {@link ChangeRecord}s), with checkpoints of the keyspace
 * ({@link CheckpointBlock}s) and recovery into it.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Groups.</b> Each thread has a group (a thread local): the keyspace opens it around each
 * change and around each exclusive section; changes reported inside it are kept, evictions
 * apart, and the outermost {@link #end()} appends them as one record, the evictions last (they
 * are conditional, so their place in the record cannot remove a newer value). The lists are
 * reused by the thread; the log copies a record's bytes before {@code append} returns.
 *
 * <p><b>Appending.</b> {@code appendLock} takes the next sequence and appends under one lock, as
 * {@code WriteAheadLog.append} requires; the ticket it returns is published in
 * {@link #appendedTicket()}, which only grows. Nothing waits for the disk here: the replies wait
 * ({@code DurableReplies}), so a command never holds a keyspace or stripe lock across a force.
 *
 * <p><b>Checkpoints</b> ({@link #checkpoint()}): the exclusive lock and {@code appendLock} for
 * the instant of {@code beginCheckpoint} (every command in flight has appended its record, and
 * the log rolls so that the segments before it hold only records at most the checkpoint's
 * sequence); then a walk of the cache with no lock; then the shared lock taken and released,
 * which waits for an exclusive section in flight to append its record; then
 * {@code Checkpoint.complete}, which forces the log before it installs the checkpoint. The
 * argument that the result is right is in docs/design/server.md (Persistence). One checkpoint at
 * a time ({@code checkpointMutex}); automatic ones run on a background thread once the log since
 * the last one holds {@code checkpointLogBytes}.
 *
 * <p>Thread-safe.
 */
public final class ServerLog implements ChangeSink, AutoCloseable {
  /** The name of the file holding the directory's format line. */
  static final String FORMAT_FILE = "server-log";
  static final String FORMAT_LINE = "larder-server-log 1";

  private final WriteAheadLog wal;
  private final Keyspace keyspace;
  private final String appendfsync;
  private final long checkpointLogBytes;
  private final LongSupplier clock;
  private final Recovered recovered;
  private final ThreadLocal<Group> groups = ThreadLocal.withInitial(Group::new);
  private final ReentrantLock appendLock = new ReentrantLock();
  private final Object checkpointMutex = new Object();
  private final ExecutorService background;
  private long lastSequence;
  private volatile long appendedTicket;
  private long bytesSinceCheckpoint;
  private long changesSinceSave;
  private volatile boolean checkpointRunning;
  private volatile boolean checkpointQueued;
  private volatile boolean closed;
  private volatile long lastSaveMillis;
  private volatile boolean lastSaveOk = true;
  private volatile long lastSaveSeconds = -1;
  private volatile long checkpointStartMillis;
  private volatile boolean writeFailed;
  private volatile long checkpointItems;

  private ServerLog(WriteAheadLog wal, Keyspace keyspace, String appendfsync,
      long checkpointLogBytes, LongSupplier clock, Recovered recovered) {
    this.wal = wal;
    this.keyspace = keyspace;
    this.appendfsync = appendfsync;
    this.checkpointLogBytes = checkpointLogBytes;
    this.clock = clock;
    this.recovered = recovered;
    this.lastSequence = wal.recovery().lastSequence();
    this.lastSaveMillis = clock.getAsLong();
    this.background = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "larder-server-checkpoint");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Opens (or creates) a log directory, recovers it into {@code keyspace} and attaches the log to
   * it: from then on every change of the keyspace is logged.
   *
   * @param directory the directory
   * @param appendfsync {@code always}, {@code everysec} or {@code no}
   * @param salvage whether recovery skips damaged records (reporting them) rather than refusing
   * @param checkpointLogBytes log bytes since the last checkpoint that start one; 0 for none
   * @param keyspace an empty keyspace, not yet attached
   * @param clock Unix milliseconds (what has expired at load; save times)
   * @return the open log
   * @throws IOException if the directory cannot be used, or holds another format
   * @throws dev.larder.wal.LogDirectoryLockedException if another server has it open
   * @throws dev.larder.wal.LogCorruptedException if it is damaged and salvage is off
   * @throws IllegalStateException if a record or checkpoint entry is not this format's
   */
  public static ServerLog open(Path directory, String appendfsync, boolean salvage,
      long checkpointLogBytes, Keyspace keyspace, LongSupplier clock) throws IOException {
    return open(directory, appendfsync, salvage, checkpointLogBytes, keyspace, clock,
        FileLayer.standard());
  }

  /**
   * As {@link #open(Path, String, boolean, long, Keyspace, LongSupplier)}, on a given file layer
   * (a simulated or instrumented disk).
   *
   * @param files the file layer the log's files go through
   */
  public static ServerLog open(Path directory, String appendfsync, boolean salvage,
      long checkpointLogBytes, Keyspace keyspace, LongSupplier clock, FileLayer files)
      throws IOException {
    Files.createDirectories(directory);
    checkFormat(directory);
    WalConfig config = WalConfig.of(directory).withPolicy(policy(appendfsync))
        .withSalvage(salvage).withFiles(files);
    KeyspaceLoader loader = new KeyspaceLoader(keyspace, clock.getAsLong());
    WriteAheadLog wal;
    try {
      wal = WriteAheadLog.open(config, loader);
    } catch (IOException | RuntimeException e) {
      loader.abandon();
      throw e;
    }
    try {
      loader.finish();
      writeFormat(directory);
      Recovered recovered = new Recovered(wal.recovery(), loader.items(),
          loader.expiredSkipped(), keyspace.estimatedSize());
      ServerLog log = new ServerLog(wal, keyspace, appendfsync, checkpointLogBytes, clock,
          recovered);
      keyspace.attach(log);
      return log;
    } catch (IOException | RuntimeException e) {
      wal.close();
      throw e;
    }
  }

  /**
   * @param appendfsync {@code always}, {@code everysec} or {@code no}
   * @return the log's policy for it (see docs/design/server.md, Persistence)
   */
  static FsyncPolicy policy(String appendfsync) {
    return switch (appendfsync) {
      case "always" -> FsyncPolicy.always();
      case "everysec" -> FsyncPolicy.interval(Duration.ofSeconds(1));
      case "no" -> FsyncPolicy.interval(Duration.ofHours(1));
      default -> throw new IllegalArgumentException("appendfsync must be always, everysec or no");
    };
  }

  private static void checkFormat(Path directory) throws IOException {
    if (Files.exists(directory.resolve("caches"))) {
      throw new IOException(directory + " holds a larder-tx store's log (its 'caches' file),"
          + " not a server's");
    }
    Path format = directory.resolve(FORMAT_FILE);
    if (Files.exists(format)) {
      String line = Files.readString(format, StandardCharsets.UTF_8).strip();
      if (!line.equals(FORMAT_LINE)) {
        throw new IOException(format + " says '" + line + "'; this server reads '"
            + FORMAT_LINE + "'");
      }
    }
  }

  private static void writeFormat(Path directory) throws IOException {
    Path format = directory.resolve(FORMAT_FILE);
    if (!Files.exists(format)) {
      Files.writeString(format, FORMAT_LINE + "\n", StandardCharsets.UTF_8);
    }
  }

  // ---- ChangeSink ----

  @Override
  public void begin() {
    groups.get().depth++;
  }

  @Override
  public void end() {
    Group g = groups.get();
    if (--g.depth > 0 || g.changes.isEmpty() && g.evictions.isEmpty()) {
      return;
    }
    try {
      g.changes.addAll(g.evictions);
      append(g.changes);
    } finally {
      g.changes.clear();
      g.evictions.clear();
    }
  }

  @Override
  public void put(byte[] storedKey, byte[] storedValue) {
    add(new ChangeRecord.Change(ChangeRecord.PUT, storedKey, storedValue, 0));
  }

  @Override
  public void delete(byte[] storedKey) {
    add(new ChangeRecord.Change(ChangeRecord.DELETE, storedKey, null, 0));
  }

  @Override
  public void evict(byte[] storedKey, long version) {
    ChangeRecord.Change c = new ChangeRecord.Change(ChangeRecord.EVICT, storedKey, null, version);
    Group g = groups.get();
    if (g.depth > 0) {
      g.evictions.add(c);
    } else {
      append(List.of(c));
    }
  }

  @Override
  public void flush(int db) {
    add(db < 0 ? new ChangeRecord.Change(ChangeRecord.FLUSH_ALL, null, null, 0)
        : new ChangeRecord.Change(ChangeRecord.FLUSH_DB, null, null, db));
  }

  private void add(ChangeRecord.Change c) {
    Group g = groups.get();
    if (g.depth > 0) {
      g.changes.add(c);
    } else {
      append(List.of(c));
    }
  }

  private void append(List<ChangeRecord.Change> changes) {
    ChangeRecord.Payload payload = new ChangeRecord.Payload(changes);
    boolean startCheckpoint = false;
    appendLock.lock();
    try {
      long sequence = lastSequence + 1;
      long ticket;
      try {
        ticket = wal.append(sequence, ChangeRecord.TYPE, payload);
      } catch (RuntimeException e) {
        writeFailed = true;
        throw e;
      }
      lastSequence = sequence;
      appendedTicket = ticket;
      bytesSinceCheckpoint += payload.length();
      changesSinceSave += changes.size();
      if (checkpointLogBytes > 0 && bytesSinceCheckpoint >= checkpointLogBytes
          && !checkpointRunning && !checkpointQueued) {
        checkpointQueued = true;
        startCheckpoint = true;
      }
    } finally {
      appendLock.unlock();
    }
    if (startCheckpoint) {
      submitCheckpoint();
    }
  }

  // ---- durability ----

  /** @return the log's ticket for everything appended so far (only grows) */
  public long appendedTicket() {
    return appendedTicket;
  }

  /**
   * Waits until everything up to {@code ticket} may be acknowledged: forced under
   * {@code always}, written to the operating system otherwise.
   *
   * @param ticket from {@link #appendedTicket()}
   * @throws UncheckedIOException if the log failed
   */
  public void sync(long ticket) {
    try {
      wal.sync(ticket);
    } catch (RuntimeException e) {
      writeFailed = true;
      throw e;
    }
  }

  @Override
  public void awaitDurable() {
    sync(appendedTicket);
  }

  /** @return whether replies wait for a force ({@code always}) */
  public boolean forcesBeforeReplies() {
    return appendfsync.equals("always");
  }

  // ---- checkpoints ----

  /**
   * Starts a checkpoint on the background thread.
   *
   * @return false if one is already running or queued
   */
  public boolean checkpointInBackground() {
    synchronized (this) {
      if (checkpointRunning || checkpointQueued || closed) {
        return false;
      }
      checkpointQueued = true;
    }
    submitCheckpoint();
    return true;
  }

  private void submitCheckpoint() {
    try {
      background.execute(() -> {
        try {
          checkpoint();
        } catch (RuntimeException e) {
          // Recorded in lastSaveOk (INFO's rdb_last_bgsave_status); the log still holds
          // everything, so nothing is lost, and the next checkpoint tries again.
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      checkpointQueued = false; // closing
    }
  }

  /**
   * Takes a checkpoint now, on this thread, without stopping writers but for an instant (see
   * the implementation notes). The caller must not hold the keyspace's shared lock (it may hold
   * the exclusive one: SAVE does).
   *
   * @return the number of keys written
   * @throws UncheckedIOException if the checkpoint cannot be written (the log is untouched)
   */
  public long checkpoint() {
    synchronized (checkpointMutex) {
      checkpointRunning = true;
      checkpointQueued = false;
      long started = clock.getAsLong();
      checkpointStartMillis = started;
      try {
        long keys = takeCheckpoint();
        lastSaveMillis = clock.getAsLong();
        lastSaveSeconds = (lastSaveMillis - started) / 1000;
        lastSaveOk = true;
        checkpointItems = keys;
        return keys;
      } catch (RuntimeException e) {
        lastSaveOk = false;
        lastSaveSeconds = (clock.getAsLong() - started) / 1000;
        throw e;
      } finally {
        checkpointRunning = false;
      }
    }
  }

  private long takeCheckpoint() {
    Checkpoint ck;
    long ceiling;
    Lock exclusive = keyspace.exclusive();
    exclusive.lock();
    try {
      appendLock.lock();
      try {
        ck = wal.beginCheckpoint(lastSequence);
        ceiling = keyspace.lastVersion();
        bytesSinceCheckpoint = 0;
        changesSinceSave = 0;
      } finally {
        appendLock.unlock();
      }
    } finally {
      exclusive.unlock();
    }
    try (ck) {
      ck.add(CheckpointBlock.header(ceiling));
      CheckpointBlock.Writer blocks = new CheckpointBlock.Writer(ck::add);
      long now = clock.getAsLong();
      keyspace.forEachStored((key, value) -> {
        if (closed) {
          throw new IllegalStateException("the server is closing");
        }
        long expiry = ValueLayout.expiryOf(value);
        if (expiry == 0 || expiry > now) {
          blocks.add(key, value);
        }
      });
      blocks.finish();
      // An exclusive section the walk saw in part appends its record before this returns, so
      // the force in complete() makes it durable before the checkpoint is installed.
      Lock shared = keyspace.shared();
      shared.lock();
      shared.unlock();
      ck.complete();
      return blocks.items();
    }
  }

  // ---- figures ----

  /** @return what recovery found when the log was opened */
  public Recovered recovered() {
    return recovered;
  }

  /** @return the log's directory */
  public Path directory() {
    return wal.config().directory();
  }

  /**
   * @return INFO persistence's fields, Redis's where they mean something here, then Larder's
   */
  public java.util.Map<String, Object> info() {
    java.util.Map<String, Object> f = new java.util.LinkedHashMap<>();
    boolean running = checkpointRunning;
    LogStats stats = wal.stats();
    long[] sizes = diskBytes();
    long changes;
    appendLock.lock();
    try {
      changes = changesSinceSave;
    } finally {
      appendLock.unlock();
    }
    f.put("loading", 0);
    f.put("async_loading", 0);
    f.put("rdb_changes_since_last_save", changes);
    f.put("rdb_bgsave_in_progress", running ? 1 : 0);
    f.put("rdb_last_save_time", lastSaveMillis / 1000);
    f.put("rdb_last_bgsave_status", lastSaveOk ? "ok" : "err");
    f.put("rdb_last_bgsave_time_sec", lastSaveSeconds);
    f.put("rdb_current_bgsave_time_sec",
        running ? (clock.getAsLong() - checkpointStartMillis) / 1000 : -1);
    f.put("aof_enabled", 1);
    f.put("aof_rewrite_in_progress", running ? 1 : 0);
    f.put("aof_rewrite_scheduled", checkpointQueued ? 1 : 0);
    f.put("aof_last_rewrite_time_sec", lastSaveSeconds);
    f.put("aof_last_bgrewrite_status", lastSaveOk ? "ok" : "err");
    f.put("aof_last_write_status", writeFailed ? "err" : "ok");
    f.put("aof_current_size", sizes[0] + sizes[1]);
    f.put("aof_base_size", sizes[1]);
    f.put("larder_log_dir", directory().toAbsolutePath());
    f.put("larder_appendfsync", appendfsync);
    f.put("larder_log_records", stats.records());
    f.put("larder_log_forces", stats.forces());
    f.put("larder_records_per_force",
        String.format(Locale.ROOT, "%.2f", stats.recordsPerForce()));
    f.put("larder_fsync_lag_records", Math.max(0, stats.records() - stats.recordsForced()));
    f.put("larder_checkpoint_keys", checkpointItems);
    f.put("larder_last_recovery_ms", recovered.report().recoveryNanos() / 1_000_000);
    return f;
  }

  /** @return the Unix time in seconds of the last checkpoint, or of the start (LASTSAVE) */
  public long lastSaveSeconds() {
    return lastSaveMillis / 1000;
  }

  /** @return whether a checkpoint is running */
  public boolean checkpointRunning() {
    return checkpointRunning;
  }

  /** @return bytes of log segments and of checkpoint files in the directory */
  private long[] diskBytes() {
    long[] sizes = new long[2];
    try (var files = Files.list(directory())) {
      files.forEach(p -> {
        String name = p.getFileName().toString();
        try {
          if (name.endsWith(".wal")) {
            sizes[0] += Files.size(p);
          } else if (name.endsWith(".ckp")) {
            sizes[1] += Files.size(p);
          }
        } catch (IOException e) {
          // A file removed by a checkpoint meanwhile: not counted.
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory(), e);
    }
    return sizes;
  }

  /**
   * Stops checkpointing (a checkpoint under way is abandoned; the log holds everything), forces
   * everything appended, closes the log and releases the directory. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    background.shutdown();
    try {
      if (!background.awaitTermination(30, TimeUnit.SECONDS)) {
        background.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    wal.close();
  }

  /**
   * What recovery found.
   *
   * @param report the log's report (checkpoint, records, torn tail or salvage)
   * @param checkpointKeys keys loaded from the checkpoint
   * @param expiredDropped values not loaded because they had expired
   * @param keys keys in the keyspace after recovery
   */
  public record Recovered(RecoveryReport report, long checkpointKeys, long expiredDropped,
      long keys) {}

  /** A thread's group of changes (see the implementation notes). */
  private static final class Group {
    int depth;
    final ArrayList<ChangeRecord.Change> changes = new ArrayList<>();
    final ArrayList<ChangeRecord.Change> evictions = new ArrayList<>();
  }
}
