package dev.larder.server.internal.persist;

import dev.larder.cluster.StoreJournal;
import dev.larder.server.internal.keyspace.Keyspace;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The server's durable log: a {@code larder-wal} directory that every change of the keyspace is
 * appended to (as {@link ChangeRecord}s, grouped by {@link ChangeGroups}), with checkpoints of the
 * keyspace ({@link Checkpointer}) and recovery into it ({@link KeyspaceLoader}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Appending.</b> {@code appendLock} takes the next sequence and appends under one lock, as
 * {@code WriteAheadLog.append} requires; the ticket it returns is published in {@link
 * #appendedTicket()}, which only grows. Nothing waits for the disk here: the replies wait ({@code
 * DurableReplies}), so a command never holds a keyspace or stripe lock across a force. A checkpoint
 * begins under the same lock, so that its sequence is the last one appended and every later record
 * lands in the segments it keeps. Once the log since the last checkpoint holds {@code
 * checkpointLogBytes}, an append starts one in the background.
 *
 * <p>Thread-safe.
 */
public final class ServerLog implements AutoCloseable {
  /** The name of the file holding the directory's format line. */
  public static final String FORMAT_FILE = "server-log";

  static final String FORMAT_LINE = "larder-server-log 1";

  private final WriteAheadLog wal;
  private final String appendfsync;
  private final long checkpointLogBytes;
  private final Recovered recovered;
  private final ReentrantLock appendLock = new ReentrantLock();
  private final Checkpointer checkpointer;

  /** The keyspace's sink: its changes, grouped, become this log's records. */
  private final ChangeGroups changes;

  private long lastSequence;
  private volatile long appendedTicket;

  /** {@code lastSequence}, readable without the lock; published after its record is appended. */
  private volatile long appendedSequence;

  private long bytesSinceCheckpoint;
  private long changesSinceSave;
  private volatile boolean writeFailed;

  private ServerLog(
      WriteAheadLog wal,
      Keyspace keyspace,
      String appendfsync,
      long checkpointLogBytes,
      LongSupplier clock,
      Recovered recovered) {
    this.wal = wal;
    this.appendfsync = appendfsync;
    this.checkpointLogBytes = checkpointLogBytes;
    this.recovered = recovered;
    this.lastSequence = wal.recovery().lastSequence();
    this.appendedSequence = lastSequence;
    this.checkpointer = new Checkpointer(keyspace, this::beginCheckpoint, clock);
    this.changes = new ChangeGroups(this::append, this::awaitDurable);
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
  public static ServerLog open(
      Path directory,
      String appendfsync,
      boolean salvage,
      long checkpointLogBytes,
      Keyspace keyspace,
      LongSupplier clock)
      throws IOException {
    return open(
        directory, appendfsync, salvage, checkpointLogBytes, keyspace, clock, FileLayer.standard());
  }

  /**
   * As {@link #open(Path, String, boolean, long, Keyspace, LongSupplier)}, on a given file layer (a
   * simulated or instrumented disk).
   *
   * @param files the file layer the log's files go through
   */
  public static ServerLog open(
      Path directory,
      String appendfsync,
      boolean salvage,
      long checkpointLogBytes,
      Keyspace keyspace,
      LongSupplier clock,
      FileLayer files)
      throws IOException {
    return open(
        directory,
        appendfsync,
        salvage,
        checkpointLogBytes,
        keyspace,
        clock,
        files,
        LoadProgress.of(directory, clock.getAsLong()));
  }

  /**
   * As {@link #open(Path, String, boolean, long, Keyspace, LongSupplier, FileLayer)}, counting what
   * it loads in {@code progress} (INFO persistence while the server loads).
   *
   * @param progress counts the bytes loaded into the keyspace
   */
  public static ServerLog open(
      Path directory,
      String appendfsync,
      boolean salvage,
      long checkpointLogBytes,
      Keyspace keyspace,
      LongSupplier clock,
      FileLayer files,
      LoadProgress progress)
      throws IOException {
    Files.createDirectories(directory);
    checkFormat(directory);
    WalConfig config =
        WalConfig.of(directory)
            .withPolicy(policy(appendfsync))
            .withSalvage(salvage)
            .withFiles(files);
    KeyspaceLoader loader = new KeyspaceLoader(keyspace, clock.getAsLong(), progress);
    long loadStarted = System.nanoTime();
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
      Recovered recovered =
          new Recovered(
              wal.recovery(),
              loader.items(),
              loader.expiredSkipped(),
              keyspace.estimatedSize(),
              System.nanoTime() - loadStarted);
      ServerLog log =
          new ServerLog(wal, keyspace, appendfsync, checkpointLogBytes, clock, recovered);
      keyspace.attach(log.changes);
      return log;
    } catch (IOException | RuntimeException e) {
      wal.close();
      throw e;
    }
  }

  /**
   * Returns the log's policy for it (see docs/design/server.md, Persistence).
   *
   * @param appendfsync {@code always}, {@code everysec} or {@code no}
   */
  public static FsyncPolicy policy(String appendfsync) {
    return switch (appendfsync) {
      case "always" -> FsyncPolicy.always();
      case "everysec" -> FsyncPolicy.interval(Duration.ofSeconds(1));
      case "no" -> FsyncPolicy.interval(Duration.ofHours(1));
      default -> throw new IllegalArgumentException("appendfsync must be always, everysec or no");
    };
  }

  private static void checkFormat(Path directory) throws IOException {
    if (Files.exists(directory.resolve("caches"))) {
      throw new IOException(
          directory + " holds a larder-tx store's log (its 'caches' file)," + " not a server's");
    }
    if (Files.exists(directory.resolve("cluster-tx"))) {
      throw new IOException(
          directory
              + " holds a clustered transaction log (its 'cluster-tx' file), written with"
              + " cluster-transactions on, not a server log: start with that setting, or give this"
              + " server another directory");
    }
    Path format = directory.resolve(FORMAT_FILE);
    if (Files.exists(format)) {
      String line = Files.readString(format, StandardCharsets.UTF_8).strip();
      if (!line.equals(FORMAT_LINE)) {
        throw new IOException(
            format + " says '" + line + "'; this server reads '" + FORMAT_LINE + "'");
      }
      // The format file is written after the log's first segment: with it and no log file at
      // all, the log was removed, which the log alone cannot tell from a new directory.
      try (var files = Files.list(directory)) {
        if (files
            .map(p -> p.getFileName().toString())
            .noneMatch(n -> n.endsWith(".wal") || n.endsWith(".ckp"))) {
          throw new IOException(
              directory
                  + " held a server log (its "
                  + FORMAT_FILE
                  + " file) but has no log segment or checkpoint left: its data was deleted; delete "
                  + FORMAT_FILE
                  + " too to start afresh");
        }
      }
    }
  }

  private static void writeFormat(Path directory) throws IOException {
    Path format = directory.resolve(FORMAT_FILE);
    if (!Files.exists(format)) {
      Files.writeString(format, FORMAT_LINE + "\n", StandardCharsets.UTF_8);
    }
  }

  /** Appends one group of changes as one record (see {@link ChangeGroups}). */
  private void append(List<ChangeRecord.Change> changes) {
    ChangeRecord.Payload payload = new ChangeRecord.Payload(changes);
    boolean startCheckpoint;
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
      appendedSequence = sequence;
      bytesSinceCheckpoint += payload.length();
      changesSinceSave += changes.size();
      startCheckpoint = checkpointLogBytes > 0 && bytesSinceCheckpoint >= checkpointLogBytes;
    } finally {
      appendLock.unlock();
    }
    if (startCheckpoint && !checkpointer.running() && !checkpointer.queued()) {
      checkpointer.inBackground();
    }
  }

  /** Begins a checkpoint at the last sequence appended; the checkpointer's {@code begin}. */
  private Checkpoint beginCheckpoint() {
    appendLock.lock();
    try {
      Checkpoint ck = wal.beginCheckpoint(lastSequence);
      bytesSinceCheckpoint = 0;
      changesSinceSave = 0;
      return ck;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Returns a journal that logs a clustered member's own store: each change one record, returned
   * from once it may be acknowledged (forced under {@code always}, written to the operating system
   * otherwise), and the member's epochs in the directory's {@code member-epoch} file. The store
   * must be the cache of the keyspace this log was opened on, whose checkpoints then walk it (see
   * docs/design/server.md, Clustering).
   *
   * @throws IOException if the epoch file cannot be read or names another version
   */
  public StoreJournal storeJournal() throws IOException {
    MemberEpochFile epoch = MemberEpochFile.in(directory());
    return new MemberStoreJournal(changes, epoch, epoch.read());
  }

  /** Returns the log's ticket for everything appended so far (only grows). */
  public long appendedTicket() {
    return appendedTicket;
  }

  /**
   * Returns the sequence of the last record appended (only grows, by one a record): the difference
   * of two readings counts the records appended between them.
   */
  public long appendedSequence() {
    return appendedSequence;
  }

  /**
   * Waits until everything up to {@code ticket} may be acknowledged: forced under {@code always},
   * written to the operating system otherwise.
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

  /**
   * Returns whether everything up to {@code ticket} may already be acknowledged (forced under
   * {@code always}, written otherwise), without waiting; false once the log has failed.
   *
   * @param ticket from {@link #appendedTicket()}
   */
  public boolean synced(long ticket) {
    return wal.synced(ticket);
  }

  /** Waits until everything appended so far may be acknowledged. */
  private void awaitDurable() {
    sync(appendedTicket);
  }

  /** Returns whether replies wait for a force ({@code always}). */
  public boolean forcesBeforeReplies() {
    return appendfsync.equals("always");
  }

  /**
   * Starts a checkpoint on a background thread (BGSAVE, BGREWRITEAOF).
   *
   * @return false if one is already running or queued
   */
  public boolean checkpointInBackground() {
    return checkpointer.inBackground();
  }

  /**
   * Takes a checkpoint now, on this thread (SAVE), without stopping writers but for an instant. The
   * caller must not hold the keyspace's shared lock (it may hold the exclusive one).
   *
   * @return the number of keys written
   * @throws UncheckedIOException if the checkpoint cannot be written (the log is untouched)
   */
  public long checkpoint() {
    return checkpointer.checkpoint();
  }

  /** Returns what recovery found when the log was opened. */
  public Recovered recovered() {
    return recovered;
  }

  /** Returns the log's directory. */
  public Path directory() {
    return wal.config().directory();
  }

  /** Returns the Unix time in seconds of the last checkpoint, or of the start (LASTSAVE). */
  public long lastSaveSeconds() {
    return checkpointer.lastSaveMillis() / 1000;
  }

  /** Returns INFO persistence's fields, Redis's where they mean something here, then Larder's. */
  public Map<String, Object> info() {
    Map<String, Object> f = new LinkedHashMap<>();
    // Queued is read before running: a checkpoint sets running before it clears queued, so a
    // requested checkpoint is always seen as one or the other (read the other way round, a
    // checkpoint starting between the two reads showed as neither, and a client waiting for
    // the rewrite to end stopped waiting before it began).
    boolean queued = checkpointer.queued();
    boolean running = checkpointer.running();
    String saved = checkpointer.lastSaveOk() ? "ok" : "err";
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
    f.put("rdb_last_save_time", lastSaveSeconds());
    f.put("rdb_last_bgsave_status", saved);
    f.put("rdb_last_bgsave_time_sec", checkpointer.lastSaveSeconds());
    f.put("rdb_current_bgsave_time_sec", checkpointer.currentSeconds());
    f.put("aof_enabled", 1);
    f.put("aof_rewrite_in_progress", running ? 1 : 0);
    f.put("aof_rewrite_scheduled", queued && !running ? 1 : 0);
    f.put("aof_last_rewrite_time_sec", checkpointer.lastSaveSeconds());
    f.put("aof_last_bgrewrite_status", saved);
    f.put("aof_last_write_status", writeFailed ? "err" : "ok");
    f.put("aof_current_size", sizes[0] + sizes[1]);
    f.put("aof_base_size", sizes[1]);
    f.put("larder_log_dir", directory().toAbsolutePath());
    f.put("larder_appendfsync", appendfsync);
    f.put("larder_log_records", stats.records());
    f.put("larder_log_forces", stats.forces());
    f.put("larder_records_per_force", String.format(Locale.ROOT, "%.2f", stats.recordsPerForce()));
    f.put("larder_fsync_lag_records", Math.max(0, stats.records() - stats.recordsForced()));
    f.put("larder_checkpoint_keys", checkpointer.keys());
    f.put("larder_last_recovery_ms", recovered.loadNanos() / 1_000_000);
    return f;
  }

  /** Returns bytes of log segments and of checkpoint files in the directory. */
  private long[] diskBytes() {
    long[] sizes = new long[2];
    try (var files = Files.list(directory())) {
      files.forEach(
          p -> {
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
    checkpointer.close();
    wal.close();
  }

  /**
   * What recovery found.
   *
   * @param report the log's report (checkpoint, records, torn tail or salvage)
   * @param checkpointKeys keys loaded from the checkpoint
   * @param expiredDropped values not loaded because they had expired
   * @param keys keys in the keyspace after recovery
   * @param loadNanos the whole load: the log's recovery and the keyspace filled (the checkpoint's
   *     blocks are stored by other threads, after the log has read them: the log's own {@code
   *     recoveryNanos} ends before they are in)
   */
  public record Recovered(
      RecoveryReport report, long checkpointKeys, long expiredDropped, long keys, long loadNanos) {}
}
