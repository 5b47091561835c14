package dev.larder.wal.internal;

import dev.larder.wal.FileLayer;
import dev.larder.wal.FsyncPolicy;
import dev.larder.wal.LogFile;
import dev.larder.wal.LogStats;
import dev.larder.wal.RecordPayload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appends records to segment files with group commit.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Locks.</b> {@code appendLock} guards the pending buffers and the logical end of the log:
 * appending encodes the record into the current pending chunk and returns a ticket (the log's total
 * appended byte count after the record). {@code flushLock} is held by the one thread that writes
 * pending chunks to the files. {@code forceLock} is held by the one thread that forces. {@code
 * stateLock} guards what a write leaves for the next force (the segment with unforced bytes, where
 * they end, the written end of the log), for the instant of reading or updating it. Lock order:
 * {@code flushLock}, {@code forceLock}, {@code stateLock}; {@code appendLock} is taken last and
 * alone (an appender never takes another lock while holding it).
 *
 * <p><b>A force never holds up a write.</b> Under an interval policy (everysec) and {@code none} a
 * commit waits only for its record to be written to the operating system, so the timer's force runs
 * under {@code forceLock} alone: it reads the written end under {@code stateLock}, forces that
 * segment with no other lock held, and then publishes the forced end. Commits meanwhile take {@code
 * flushLock} and write (a {@code pwrite} and a force of one file may run at once). A force of a log
 * with a checkpoint of hundreds of megabytes being written beside it can take a long time (the file
 * system's journal commit then waits for the other file's data); holding the write path through it
 * stopped every everysec writer for the whole force. The one force that still holds {@code
 * flushLock} is a finished segment's (below), once per segment and checkpoint.
 *
 * <p><b>Group commit.</b> {@link #sync} returns at once if its ticket is already covered (written,
 * or forced under {@code always}). Otherwise the caller tries {@code flushLock}; the one that gets
 * it checks again, then swaps out every pending chunk, writes each with one call and, under {@code
 * always}, forces once (taking {@code forceLock} inside {@code flushLock}, so that the next group
 * gathers while it forces). The others wait on a monitor that the flusher notifies (all at once)
 * when it is done; those it covered return, the rest try again. While one thread forces, the others
 * append, so the next flusher writes all of their records with one write and one force. No thread
 * sleeps or waits for a timer.
 *
 * <p><b>Policy {@code none}: batched writes.</b> A commit is acknowledged as soon as its record is
 * appended to the pending buffer; the committer that takes the pending bytes past {@link
 * #BATCH_BYTES} writes them (one {@code write} for many records), and a timer writes whatever is
 * pending every {@link #BATCH_MILLIS} ms. Nothing is forced until a segment is finished, a
 * checkpoint completes or the log closes. So a commit costs an append to memory, not a system call;
 * a process kill loses at most the commits not yet written. While a write or a segment's force is
 * under way those can exceed a batch; a committer whose record lies more than {@link
 * #PENDING_LIMIT_BYTES} beyond the written end waits, so the buffer (and what a kill can lose)
 * stays bounded when commits outrun the disk.
 *
 * <p><b>Buffers.</b> The flusher hands the buffer of the chunk it has written back as the spare for
 * the next chunk, so that a steady stream of commits allocates no buffers.
 *
 * <p><b>Forced end.</b> Each record carries the offset up to which its segment was forced when it
 * was encoded. Recovery uses it to tell a torn unforced tail (no later record claims it forced)
 * from damage to forced bytes (a later intact record does).
 *
 * <p><b>Segments.</b> When the current segment reaches the configured size, or a checkpoint asks, a
 * new segment is created (its header, which names the last sequence appended so far, written and
 * forced) and the old one is marked finished; the flusher writes a finished segment's last chunk
 * and its footer (naming the next segment), forces and closes it before writing any chunk of the
 * next, so every segment but the last is wholly forced and ends with a footer. At open, the newest
 * segment recovery found is finished the same way once the new one exists. Recovery relies on both:
 * a segment's header says where it begins, a footer that its successor exists.
 *
 * <p><b>Failure.</b> An I/O error while writing or forcing leaves the disk in an unknown state: the
 * writer remembers it and every later append or sync throws.
 */
public final class LogWriter implements AutoCloseable {

  /** Under {@code none}, the pending bytes at which a committer writes them. */
  public static final int BATCH_BYTES = 64 * 1024;

  /** Under {@code none}, how often the timer writes whatever is pending, in milliseconds. */
  public static final int BATCH_MILLIS = 10;

  /**
   * Under {@code none}, the most bytes a committer lets pend beyond what is written: past it, the
   * committer waits for (or does) a write. Without it, committers that outrun the disk (a segment's
   * force at a roll, a slow device) grew the pending buffer without bound: 4 threads of 50 KiB
   * commits ran a 1 GiB heap out of memory.
   */
  public static final int PENDING_LIMIT_BYTES = 4 << 20;

  /** The largest buffer kept for reuse; larger ones (a group of big records) are dropped. */
  private static final int SPARE_LIMIT = 4 << 20;

  private final FileLayer files;
  private final Path directory;
  private final FsyncPolicy policy;
  private final long segmentBytes;
  private final ReentrantLock appendLock = new ReentrantLock();
  private final ReentrantLock flushLock = new ReentrantLock();
  private final ReentrantLock forceLock = new ReentrantLock();
  private final ReentrantLock stateLock = new ReentrantLock();
  private final Object progress = new Object();
  private final ScheduledExecutorService timer;

  /** The timer's periodic task, or null without a timer; cancelled at close. */
  private final ScheduledFuture<?> ticks;

  private Segment current;

  /** The segment with written but unforced bytes, if any; guarded by stateLock. */
  private Segment dirty;

  private List<Chunk> pending = new ArrayList<>();

  /** A written chunk's buffer, for the next chunk; guarded by appendLock. */
  private byte[] spare;

  private long appended;

  /** {@code appended}, readable without the lock (the timer's cheap "anything to write?"). */
  private volatile long appendedVolatile;

  private long lastSequence;

  /** The end of what is written to the files; changed under stateLock (and flushLock). */
  private volatile long written;

  /** The end of what is forced; changed under forceLock. */
  private volatile long forced;

  private volatile IOException failure;

  /** Set under flushLock and forceLock both. */
  private volatile boolean closed;

  // Counters: records and bytes guarded by appendLock, the others by stateLock (never held
  // across I/O, so stats() waits for no write or force).
  private long records;
  private long writes;
  private long forces;
  private long recordsForced;
  private long recordsUnforced;
  private long bytes;

  /**
   * Starts a new segment.
   *
   * @param files the file layer
   * @param directory the log directory
   * @param policy the fsync policy
   * @param segmentBytes the roll size
   * @param firstSegment the new segment's number
   * @param lastSequence the highest sequence already in the log
   * @param previous the newest segment already in the log, to be finished with a footer once the
   *     new segment exists; null if there is none, or it needs no footer
   * @throws IOException on failure
   */
  public LogWriter(
      FileLayer files,
      Path directory,
      FsyncPolicy policy,
      long segmentBytes,
      long firstSegment,
      long lastSequence,
      SegmentEnd previous)
      throws IOException {
    this.files = files;
    this.directory = directory;
    this.policy = policy;
    this.segmentBytes = segmentBytes;
    this.lastSequence = lastSequence;
    this.current = Segment.create(files, directory, firstSegment, lastSequence);
    if (previous != null) {
      finishPrevious(previous);
    }
    if (policy instanceof FsyncPolicy.Interval interval) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "larder-wal-fsync");
                t.setDaemon(true);
                return t;
              });
      long ms = interval.period().toMillis();
      ticks = timer.scheduleAtFixedRate(tick(this::periodicForce), ms, ms, TimeUnit.MILLISECONDS);
    } else if (policy instanceof FsyncPolicy.None) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "larder-wal-write");
                t.setDaemon(true);
                return t;
              });
      ticks =
          timer.scheduleAtFixedRate(
              tick(this::periodicWrite), BATCH_MILLIS, BATCH_MILLIS, TimeUnit.MILLISECONDS);
    } else {
      timer = null;
      ticks = null;
    }
  }

  /**
   * A timer tick that fails the log on an unchecked exception, as an I/O error does: a periodic
   * task that throws is never run again, so without this the log would silently stop forcing (or
   * writing) while commits went on being accepted.
   */
  private Runnable tick(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = new IOException("the log's timer failed: " + e, e);
        }
        signalProgress();
      }
    };
  }

  /**
   * Appends a record. Callers append in sequence order (larder-tx does so under its commit lock).
   *
   * @param sequence greater than every sequence appended before
   * @param type record type, 0-255
   * @param payload the payload
   * @return the ticket to pass to {@link #sync}
   * @throws IllegalArgumentException if the sequence does not increase or the record is too big
   * @throws UncheckedIOException if the log failed earlier or a new segment cannot be created
   */
  public long append(long sequence, int type, byte[] payload) {
    return append(
        sequence,
        type,
        new RecordPayload() {
          @Override
          public int length() {
            return payload.length;
          }

          @Override
          public void writeTo(byte[] out, int offset) {
            System.arraycopy(payload, 0, out, offset, payload.length);
          }
        });
  }

  /**
   * Appends a record whose payload writes itself into the pending buffer, as {@link #append(long,
   * int, byte[])} otherwise.
   *
   * @param sequence greater than every sequence appended before
   * @param type record type, 0-255
   * @param payload the payload
   * @return the ticket to pass to {@link #sync}
   */
  public long append(long sequence, int type, RecordPayload payload) {
    int length = payload.length();
    if (length < 0 || length > RecordLayout.MAX_BODY - RecordLayout.BODY_PREFIX) {
      throw new IllegalArgumentException("log record too large: " + length + " bytes");
    }
    appendLock.lock();
    try {
      checkUsable();
      if (sequence <= lastSequence) {
        throw new IllegalArgumentException(
            "sequence " + sequence + " does not follow " + lastSequence);
      }
      int size = RecordLayout.size(length);
      Chunk chunk = chunkFor(size);
      RecordLayout.encode(
          chunk.buffer, chunk.length, sequence, current.forcedEnd, type, length, payload::writeTo);
      chunk.length += size;
      chunk.records++;
      current.size += size;
      appended += size;
      appendedVolatile = appended;
      lastSequence = sequence;
      records++;
      bytes += size;
      if (current.size >= segmentBytes) {
        rollLocked();
      }
      return appended;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Returns once the record of {@code ticket} may be acknowledged under the policy: forced for
   * {@code always}, written to the operating system for {@code interval}, appended for {@code none}
   * (which writes here only when the pending bytes reach {@link #BATCH_BYTES}, and waits while more
   * than {@link #PENDING_LIMIT_BYTES} are pending before its record).
   *
   * @param ticket from {@link #append}
   * @throws UncheckedIOException if writing or forcing fails (now or earlier)
   */
  public void sync(long ticket) {
    if (policy instanceof FsyncPolicy.None) {
      if (ticket - written >= BATCH_BYTES && flushLock.tryLock()) {
        try {
          writeLocked();
        } finally {
          flushLock.unlock();
          signalProgress();
        }
      }
      // back-pressure: far ahead of the disk, wait until a write brings it within the limit
      while (ticket - written > PENDING_LIMIT_BYTES) {
        waitForCoverage(ticket - PENDING_LIMIT_BYTES, false);
      }
      checkUsable();
      return;
    }
    boolean force = policy instanceof FsyncPolicy.Always;
    while (covered(force) < ticket) {
      waitForCoverage(ticket, force);
    }
  }

  /**
   * Returns whether the record of {@code ticket} may already be acknowledged: forced under {@code
   * always}, written to the operating system under the other policies (a stricter answer than
   * {@link #sync} needs under {@code none}). Never waits, writes or throws; false once the log has
   * failed.
   *
   * @param ticket from {@link #append}
   */
  public boolean synced(long ticket) {
    return failure == null && covered(policy instanceof FsyncPolicy.Always) >= ticket;
  }

  /**
   * One step towards {@code covered(force) >= target}: flushes if no one else is, else waits for
   * the flusher. Throws if the log failed.
   */
  private void waitForCoverage(long target, boolean force) {
    if (flushLock.tryLock()) {
      try {
        if (covered(force) < target) {
          flushLocked(force);
        }
      } finally {
        flushLock.unlock();
        signalProgress();
      }
      checkUsable();
    } else {
      awaitProgress(target, force);
    }
  }

  private long covered(boolean force) {
    return force ? forced : written;
  }

  /**
   * Waits while another thread flushes. Every waiter is woken at once when it finishes, rather than
   * handed the flush lock one after another, so that they all get back to committing (and fill the
   * next group) while the next force runs. The flusher signals after unlocking, under the same
   * monitor as this check, so a wake-up cannot be missed.
   */
  private void awaitProgress(long ticket, boolean force) {
    boolean interrupted = false;
    synchronized (progress) {
      while (covered(force) < ticket && flushLock.isLocked() && failure == null) {
        try {
          progress.wait();
        } catch (InterruptedException e) {
          // Uninterruptible, like the flusher's own I/O: the wait lasts one force at most, and a
          // commit abandoned here would be in doubt (its record may be forced or not), which
          // larder-tx can only answer by refusing every later commit. The flag is restored.
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    checkUsable();
  }

  private void signalProgress() {
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  /**
   * Writes and forces everything appended so far, whatever the policy. The force holds up no commit
   * that waits only for its record to be written (see the implementation notes).
   *
   * @throws UncheckedIOException on failure
   */
  public void forceAll() {
    flushLock.lock();
    try {
      writeLocked();
    } finally {
      flushLock.unlock();
      signalProgress();
    }
    forceWritten();
    checkUsable();
  }

  /** Forces what is written so far (waiting for a force under way), under {@code forceLock}. */
  private void forceWritten() {
    forceLock.lock();
    try {
      forceLocked();
    } finally {
      forceLock.unlock();
      signalProgress();
    }
  }

  /**
   * Finishes the current segment and starts the next, so that every record appended later lands in
   * a segment numbered at least the one returned.
   *
   * @return the new segment's number
   */
  public long roll() {
    appendLock.lock();
    try {
      checkUsable();
      rollLocked();
      return current.number;
    } finally {
      appendLock.unlock();
    }
  }

  /** Returns the highest sequence appended. */
  public long lastSequence() {
    appendLock.lock();
    try {
      return lastSequence;
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Returns the counters, without waiting for a write or a force under way (INFO runs on a server's
   * event loop). The forced count is read before the appended one, so it never exceeds it.
   *
   * @param checkpoints checkpoints completed so far
   */
  public LogStats stats(long checkpoints) {
    long writeCount;
    long forceCount;
    long forcedRecords;
    stateLock.lock();
    try {
      writeCount = writes;
      forceCount = forces;
      forcedRecords = recordsForced;
    } finally {
      stateLock.unlock();
    }
    appendLock.lock();
    try {
      return new LogStats(records, writeCount, forceCount, forcedRecords, bytes, checkpoints);
    } finally {
      appendLock.unlock();
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      // Not shutdownNow: interrupting a force under way would fail it. A tick that is running
      // finishes (it holds the flush lock, which close takes next); no later tick starts.
      ticks.cancel(false);
      timer.shutdown();
    }
    flushLock.lock();
    forceLock.lock();
    try {
      if (closed) {
        return;
      }
      if (failure == null) {
        writeLocked();
        forceLocked();
      }
      closed = true;
      try {
        current.file.close();
      } catch (IOException e) {
        // Closing after a successful force loses nothing; the error is of no use to the caller.
      }
    } finally {
      forceLock.unlock();
      flushLock.unlock();
      signalProgress();
    }
    IOException e = failure;
    if (e != null) {
      throw new UncheckedIOException("the log failed before it was closed: " + e.getMessage(), e);
    }
  }

  /** Writes the footer of the newest segment of the log as it was opened, and forces it. */
  private void finishPrevious(SegmentEnd previous) throws IOException {
    byte[] footer = new SegmentFooter(current.number, lastSequence).encode();
    try (LogFile file = files.open(directory.resolve(SegmentNames.segment(previous.number())))) {
      file.write(previous.end(), footer, 0, footer.length);
      file.force();
    } catch (IOException | RuntimeException e) {
      current.file.close();
      throw e;
    }
  }

  /**
   * The newest segment of a log being opened, as recovery left it.
   *
   * @param number its number
   * @param end where its intact content ends, and so where its footer goes
   */
  public record SegmentEnd(long number, long end) {}

  /**
   * Under an interval: writes what is pending if no commit is writing right now (that commit's
   * write is forced here or at the next tick), then forces what is written, holding only {@code
   * forceLock} through the force so that commits go on writing.
   */
  private void periodicForce() {
    if (flushLock.tryLock()) {
      try {
        writeLocked();
      } finally {
        flushLock.unlock();
        signalProgress();
      }
    }
    forceWritten();
  }

  /** Under {@code none}: writes what is pending (without forcing) if no one else is. */
  private void periodicWrite() {
    if (written == appendedVolatile || !flushLock.tryLock()) {
      return;
    }
    try {
      writeLocked();
    } finally {
      flushLock.unlock();
      signalProgress();
    }
  }

  private Chunk chunkFor(int size) {
    Chunk last = pending.isEmpty() ? null : pending.getLast();
    if (last == null || last.segment != current) {
      byte[] buffer =
          spare != null && spare.length >= size ? spare : new byte[Math.max(size, 4096)];
      spare = null;
      last = new Chunk(current, current.size, buffer);
      pending.add(last);
    }
    last.ensure(size);
    return last;
  }

  private void rollLocked() {
    Segment next;
    try {
      next = Segment.create(files, directory, current.number + 1, lastSequence);
    } catch (IOException e) {
      failure = e;
      throw new UncheckedIOException(
          "cannot start log segment " + (current.number + 1) + ": " + e.getMessage(), e);
    }
    Chunk finishing = new Chunk(current, current.size, new byte[0]);
    finishing.footer = new SegmentFooter(next.number, lastSequence);
    pending.add(finishing);
    current = next;
  }

  /** Under {@code always}: writes what is pending, then forces it. The caller holds flushLock. */
  private void flushLocked(boolean force) {
    writeLocked();
    if (force) {
      forceLock.lock();
      try {
        forceLocked();
      } finally {
        forceLock.unlock();
      }
    }
  }

  /**
   * Writes every pending chunk, finishing (footer, force, close) each segment that a roll ended
   * before any chunk of the next is written. The caller holds flushLock.
   */
  private void writeLocked() {
    if (failure != null || closed) {
      return;
    }
    List<Chunk> batch;
    long end;
    appendLock.lock();
    try {
      batch = pending;
      pending = new ArrayList<>();
      end = appended;
    } finally {
      appendLock.unlock();
    }
    try {
      for (Chunk chunk : batch) {
        if (chunk.length > 0) {
          chunk.segment.file.write(chunk.start, chunk.buffer, 0, chunk.length);
          stateLock.lock();
          try {
            writes++;
            chunk.segment.writtenEnd = chunk.start + chunk.length;
            recordsUnforced += chunk.records;
            dirty = chunk.segment;
          } finally {
            stateLock.unlock();
          }
        }
        if (chunk.footer != null) {
          finishSegment(chunk);
        }
      }
      stateLock.lock();
      try {
        written = end;
      } finally {
        stateLock.unlock();
      }
      recycle(batch);
    } catch (IOException e) {
      failure = e;
    }
  }

  /**
   * Writes a finished segment's footer, forces and closes it. Under forceLock, so that the timer is
   * not forcing the file as it closes; the caller holds flushLock, so no chunk of the next segment
   * is written before this one is wholly forced.
   */
  private void finishSegment(Chunk chunk) throws IOException {
    byte[] footer = chunk.footer.encode();
    Segment segment = chunk.segment;
    segment.file.write(chunk.start, footer, 0, footer.length);
    forceLock.lock();
    try {
      segment.file.force();
      stateLock.lock();
      try {
        segment.writtenEnd = chunk.start + footer.length;
        segment.forcedEnd = segment.writtenEnd;
        forces++;
        recordsForced += recordsUnforced;
        recordsUnforced = 0;
        if (dirty == segment) {
          dirty = null;
        }
      } finally {
        stateLock.unlock();
      }
      segment.file.close();
    } finally {
      forceLock.unlock();
      signalProgress();
    }
  }

  /**
   * Forces the segment written to since the last force, up to where it was written when this began,
   * and then publishes the log's written end of that moment as forced. The caller holds forceLock
   * and not stateLock; commits may write meanwhile (their bytes are covered by a later force). A
   * finished segment cannot be closed under it: finishing takes forceLock.
   */
  private void forceLocked() {
    if (failure != null || closed) {
      return;
    }
    Segment segment;
    long segmentEnd;
    long end;
    long unforced;
    stateLock.lock();
    try {
      segment = dirty;
      segmentEnd = segment == null ? 0 : segment.writtenEnd;
      end = written;
      unforced = recordsUnforced;
      recordsUnforced = 0;
      dirty = null;
    } finally {
      stateLock.unlock();
    }
    try {
      if (segment != null) {
        segment.file.force();
        segment.forcedEnd = Math.max(segment.forcedEnd, segmentEnd);
        stateLock.lock();
        try {
          forces++;
          recordsForced += unforced;
        } finally {
          stateLock.unlock();
        }
      }
      forced = Math.max(forced, end);
    } catch (IOException e) {
      failure = e;
    }
  }

  /** Keeps the biggest written buffer (not too big) as the next chunk's. */
  private void recycle(List<Chunk> batch) {
    byte[] best = null;
    for (Chunk chunk : batch) {
      int length = chunk.buffer.length;
      if (length <= SPARE_LIMIT && (best == null || length > best.length)) {
        best = chunk.buffer;
      }
    }
    if (best != null) {
      appendLock.lock();
      try {
        if (spare == null || spare.length < best.length) {
          spare = best;
        }
      } finally {
        appendLock.unlock();
      }
    }
  }

  private void checkUsable() {
    IOException e = failure;
    if (e != null) {
      throw new UncheckedIOException(
          "the log failed to write or force ("
              + e.getMessage()
              + "); it accepts no more commits until reopened (recovery decides what reached the "
              + "disk)",
          e);
    }
    if (closed) {
      throw new IllegalStateException("log is closed");
    }
  }

  /** One segment file being appended to. */
  private static final class Segment {
    final long number;
    final LogFile file;
    long size;
    long writtenEnd;
    volatile long forcedEnd;

    private Segment(long number, LogFile file) {
      this.number = number;
      this.file = file;
      this.size = SegmentHeader.BYTES;
      this.writtenEnd = SegmentHeader.BYTES;
      this.forcedEnd = SegmentHeader.BYTES;
    }

    /**
     * Creates a segment: its header written and forced, so that its first record, whenever it
     * comes, follows {@code previousSequence}. If that fails (a full disk), the file is deleted
     * again where possible, so that it is not left for recovery to report as a torn segment.
     */
    static Segment create(FileLayer files, Path directory, long number, long previousSequence)
        throws IOException {
      Path path = directory.resolve(SegmentNames.segment(number));
      LogFile file = files.open(path);
      try {
        file.truncate(0);
        byte[] header = SegmentHeader.encode(number, previousSequence);
        file.write(0, header, 0, header.length);
        file.force();
      } catch (IOException | RuntimeException e) {
        try {
          file.close();
          files.delete(path);
        } catch (IOException | RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
      return new Segment(number, file);
    }
  }

  /** Bytes appended to one segment and not yet written. */
  private static final class Chunk {
    final Segment segment;
    final long start;
    byte[] buffer;
    int length;
    int records;

    /** Set on the empty chunk that finishes its segment: the footer written after its records. */
    SegmentFooter footer;

    Chunk(Segment segment, long start, byte[] buffer) {
      this.segment = segment;
      this.start = start;
      this.buffer = buffer;
    }

    void ensure(int more) {
      if (buffer.length - length < more) {
        buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
      }
    }
  }
}
