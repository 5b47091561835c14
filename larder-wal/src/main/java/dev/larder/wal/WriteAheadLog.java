package dev.larder.wal;

import dev.larder.wal.internal.LogRecovery;
import dev.larder.wal.internal.LogWriter;
import dev.larder.wal.internal.NamingFileLayer;
import dev.larder.wal.internal.SegmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An append-only log of records, with group commit, fsync policies, checkpoints and recovery.
 *
 * <p><b>Opening</b> takes the directory's lock file (a second opener, in this process or another,
 * gets {@link LogDirectoryLockedException}), then recovers: the last complete checkpoint's entries
 * and the records after it are handed to a {@link LogReplay}; a torn tail is cut off and reported
 * in {@link #recovery()}; damage before the tail throws {@link LogCorruptedException} naming the
 * file and offset, and a missing segment or checkpoint throws {@link LogGapException} naming the
 * files and the records lost, unless {@link WalConfig#salvage()} asks to skip them (and report
 * them). Appending then continues in a new segment.
 *
 * <p><b>Errors</b> of the file layer reach the caller with the file and the operation named
 * ("cannot write 32 bytes at offset 0 of …/log-0000000000000005.wal: No space left on device"), the
 * layer's own exception as the cause.
 *
 * <p><b>Committing</b> is two calls: {@link #append} (in sequence order; the caller serializes
 * them) returns a ticket, and {@link #sync} returns once that record may be acknowledged under the
 * {@link FsyncPolicy}. Callers should append under their commit lock and sync after releasing it:
 * concurrent syncs then share one write and one force (group commit).
 *
 * <p><b>Thread safety:</b> all methods may be called from any thread.
 */
public final class WriteAheadLog implements AutoCloseable {

  private final WalConfig config;
  private final FileLayer files;
  private final AutoCloseable lock;
  private final LogWriter writer;
  private final RecoveryReport recovery;
  private final Object checkpointLock = new Object();

  /** Checkpoints installed; read by stats() without checkpointLock. */
  private final AtomicLong checkpoints = new AtomicLong();

  private WriteAheadLog(
      WalConfig config,
      FileLayer files,
      AutoCloseable lock,
      LogWriter writer,
      RecoveryReport recovery) {
    this.config = config;
    this.files = files;
    this.lock = lock;
    this.writer = writer;
    this.recovery = recovery;
  }

  /**
   * Opens (or creates) a log directory, recovering its state into {@code replay}.
   *
   * @param config where and how
   * @param replay receives the recovered state before this returns
   * @return the open log
   * @throws LogDirectoryLockedException if the directory is in use
   * @throws LogCorruptedException if recovery meets damage and salvage is off
   * @throws LogGapException if a segment or checkpoint is missing and salvage is off
   * @throws java.nio.file.NotDirectoryException if the path exists and is not a directory
   * @throws IOException on failure, naming the file and the operation
   */
  public static WriteAheadLog open(WalConfig config, LogReplay replay) throws IOException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(replay, "replay");
    FileLayer files = NamingFileLayer.wrap(config.files());
    AutoCloseable lock = files.lock(config.directory());
    try {
      LogRecovery recovery = new LogRecovery(config, files, replay);
      RecoveryReport report = recovery.run();
      LogWriter writer =
          new LogWriter(
              files,
              config.directory(),
              config.policy(),
              config.segmentBytes(),
              recovery.lastSegment() + 1,
              report.lastSequence(),
              recovery.unfinished());
      return new WriteAheadLog(config, files, lock, writer, report);
    } catch (IOException | RuntimeException | Error e) {
      closeQuietly(lock, e);
      throw e;
    }
  }

  /** Returns what recovery found when this log was opened. */
  public RecoveryReport recovery() {
    return recovery;
  }

  /** Returns the configuration. */
  public WalConfig config() {
    return config;
  }

  /** The configuration's file layer, its errors naming their file and operation. */
  FileLayer files() {
    return files;
  }

  /**
   * Appends one record. Not durable until {@link #sync} returns for its ticket.
   *
   * @param sequence greater than every sequence in the log
   * @param type a record type, 0-255, handed back on replay
   * @param payload the payload, handed back on replay
   * @return the ticket for {@link #sync}
   * @throws IllegalArgumentException if the sequence does not increase or the record is too large
   * @throws UncheckedIOException if the log failed earlier
   */
  public long append(long sequence, int type, byte[] payload) {
    if (type < 0 || type > 255) {
      throw new IllegalArgumentException("record type must be 0-255: " + type);
    }
    return writer.append(sequence, type, Objects.requireNonNull(payload, "payload"));
  }

  /**
   * Appends one record whose payload writes itself into the log's buffer (no intermediate array),
   * as {@link #append(long, int, byte[])} otherwise.
   *
   * @param sequence greater than every sequence in the log
   * @param type a record type, 0-255, handed back on replay
   * @param payload writes the payload, handed back on replay as its bytes
   * @return the ticket for {@link #sync}
   * @throws IllegalArgumentException if the sequence does not increase or the record is too large
   * @throws UncheckedIOException if the log failed earlier
   */
  public long append(long sequence, int type, RecordPayload payload) {
    if (type < 0 || type > 255) {
      throw new IllegalArgumentException("record type must be 0-255: " + type);
    }
    return writer.append(sequence, type, Objects.requireNonNull(payload, "payload"));
  }

  /**
   * Waits until the record of {@code ticket} may be acknowledged: forced under {@code always},
   * handed to the operating system under {@code interval} and {@code none}. The wait ignores
   * interrupts (it lasts one write and force at most) and restores the thread's interrupt flag when
   * it returns, so an interrupted caller never leaves its record in doubt.
   *
   * @param ticket from {@link #append}
   * @throws UncheckedIOException if writing or forcing fails; the log then refuses further work
   */
  public void sync(long ticket) {
    writer.sync(ticket);
  }

  /**
   * Returns whether the record of {@code ticket} may already be acknowledged (forced under {@code
   * always}, written to the operating system otherwise), without waiting, writing or throwing: a
   * caller that holds replies for many records can send those already covered by a force another
   * thread did, rather than wait in {@link #sync}. False once the log has failed.
   *
   * @param ticket from {@link #append}
   */
  public boolean synced(long ticket) {
    return writer.synced(ticket);
  }

  /** Returns the highest sequence in the log. */
  public long lastSequence() {
    return writer.lastSequence();
  }

  /**
   * Starts a checkpoint of the state as of {@code sequence}. Call it where no record of a higher
   * sequence has been appended and every record up to {@code sequence} has been (larder-tx calls it
   * under its commit lock); the log rolls to a new segment so that the segments before it hold only
   * records the checkpoint will cover. The roll is all it does (the checkpoint's own file is
   * created by its first {@link Checkpoint#add}), so that a caller who holds writers up around it
   * holds them for the roll alone.
   *
   * @param sequence the sequence the caller's state is at
   * @return the checkpoint to fill and complete
   * @throws UncheckedIOException on failure
   */
  public Checkpoint beginCheckpoint(long sequence) {
    long keepFrom = writer.roll();
    return new Checkpoint(this, sequence, keepFrom);
  }

  void installCheckpoint(Path temporary, long sequence, long keepFromSegment) throws IOException {
    synchronized (checkpointLock) {
      writer.forceAll();
      Path target = config.directory().resolve(SegmentNames.checkpoint(sequence));
      files.rename(temporary, target);
      for (String name : files.list(config.directory())) {
        long checkpoint = SegmentNames.checkpointSequence(name);
        long segment = SegmentNames.segmentNumber(name);
        if ((checkpoint >= 0 && checkpoint < sequence)
            || (segment >= 0 && segment < keepFromSegment)) {
          files.delete(config.directory().resolve(name));
        }
      }
      checkpoints.incrementAndGet();
    }
  }

  /**
   * Returns counters since opening. Waits for no write, force or checkpoint under way (a server
   * answers INFO from its event loop).
   */
  public LogStats stats() {
    return writer.stats(checkpoints.get());
  }

  /** Forces everything appended, closes the files and releases the directory lock. Idempotent. */
  @Override
  public void close() {
    try {
      writer.close();
    } finally {
      closeQuietly(lock, null);
    }
  }

  private static void closeQuietly(AutoCloseable closeable, Throwable primary) {
    try {
      closeable.close();
    } catch (Exception e) {
      if (primary != null) {
        primary.addSuppressed(e);
      }
    }
  }
}
