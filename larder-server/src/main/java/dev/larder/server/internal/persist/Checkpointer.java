package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.wal.Checkpoint;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Takes checkpoints of the keyspace into the server's log, on request or in the background, and
 * keeps what INFO persistence and LASTSAVE report of them.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A checkpoint ({@link #checkpoint()}): under the keyspace's exclusive lock, for the instant of
 * {@code begin} (every command in flight has appended its record; the log takes the checkpoint's
 * sequence and rolls, so the segments before it hold only records at most that sequence) and of
 * reserving the version its items are loaded with; then a walk of the cache with no lock, writing
 * each live key into {@link CheckpointBlock}s; then the shared lock taken and released, which waits
 * for an exclusive section in flight to append its record; then {@code Checkpoint.complete}, which
 * forces the log before it installs the checkpoint. Why the result is right: docs/design/server.md,
 * Persistence. One checkpoint at a time ({@code mutex}); background ones on one thread.
 *
 * <p>Thread-safe.
 */
final class Checkpointer implements AutoCloseable {
  private final Keyspace keyspace;
  private final Supplier<Checkpoint> begin;
  private final LongSupplier clock;
  private final Object mutex = new Object();
  private final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "larder-server-checkpoint");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean running;
  private volatile boolean queued;
  private volatile boolean closed;
  private volatile long lastSaveMillis;
  private volatile boolean lastSaveOk = true;
  private volatile long lastSaveSeconds = -1;
  private volatile long startedMillis;
  private volatile long keys;

  /**
   * @param keyspace the keyspace to walk
   * @param begin begins a checkpoint at the log's last sequence; called under the keyspace's
   *     exclusive lock
   * @param clock Unix milliseconds
   */
  Checkpointer(Keyspace keyspace, Supplier<Checkpoint> begin, LongSupplier clock) {
    this.keyspace = keyspace;
    this.begin = begin;
    this.clock = clock;
    this.lastSaveMillis = clock.getAsLong();
  }

  /**
   * Starts a checkpoint on the background thread.
   *
   * @return false if one is already running or queued, or the log is closing
   */
  synchronized boolean inBackground() {
    if (running || queued || closed) {
      return false;
    }
    queued = true;
    try {
      background.execute(
          () -> {
            try {
              checkpoint();
            } catch (RuntimeException e) {
              // Kept in lastSaveOk (INFO's rdb_last_bgsave_status); the log still holds everything,
              // so nothing is lost, and the next checkpoint tries again.
            }
          });
    } catch (RejectedExecutionException e) {
      queued = false;
      return false;
    }
    return true;
  }

  /**
   * Takes a checkpoint now, on this thread. The caller must not hold the keyspace's shared lock (it
   * may hold the exclusive one: SAVE does).
   *
   * @return the number of keys written
   * @throws UncheckedIOException if the checkpoint cannot be written (the log is untouched)
   */
  long checkpoint() {
    synchronized (mutex) {
      running = true;
      queued = false;
      long started = clock.getAsLong();
      startedMillis = started;
      try {
        long written = take();
        lastSaveMillis = clock.getAsLong();
        lastSaveSeconds = (lastSaveMillis - started) / 1000;
        lastSaveOk = true;
        keys = written;
        return written;
      } catch (RuntimeException e) {
        lastSaveOk = false;
        lastSaveSeconds = (clock.getAsLong() - started) / 1000;
        throw e;
      } finally {
        running = false;
      }
    }
  }

  // The shared lock is taken and given back at once, as a barrier (see below): nothing runs under
  // it.
  @SuppressWarnings("LockNotBeforeTry")
  private long take() {
    Checkpoint ck;
    long itemVersion;
    long keysAtBegin;
    Lock exclusive = keyspace.exclusive();
    exclusive.lock();
    try {
      ck = begin.get();
      itemVersion = keyspace.reserveVersion();
      keysAtBegin = keyspace.estimatedSize();
    } finally {
      exclusive.unlock();
    }
    try (ck) {
      ck.add(CheckpointBlock.header(itemVersion, keysAtBegin));
      CheckpointBlock.Writer blocks =
          CheckpointBlock.Writer.reusing((bytes, length) -> ck.add(bytes, 0, length));
      long now = clock.getAsLong();
      keyspace.forEachStored(
          (entry, keyLength, valueLength) -> {
            if (closed) {
              throw new IllegalStateException("the server is closing");
            }
            long expiry = ValueLayout.expiryOf(entry, keyLength);
            if (expiry == 0 || expiry > now) {
              blocks.add(entry, keyLength, valueLength);
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

  /** Returns whether a checkpoint is running. */
  boolean running() {
    return running;
  }

  /** Returns whether a background checkpoint is waiting to start. */
  boolean queued() {
    return queued;
  }

  /** Returns when the last checkpoint finished (or the log was opened), Unix milliseconds. */
  long lastSaveMillis() {
    return lastSaveMillis;
  }

  /** Returns whether the last checkpoint succeeded (true before the first). */
  boolean lastSaveOk() {
    return lastSaveOk;
  }

  /** Returns how long the last checkpoint took, whole seconds; -1 before the first. */
  long lastSaveSeconds() {
    return lastSaveSeconds;
  }

  /** Returns how long the running checkpoint has run, whole seconds; -1 if none runs. */
  long currentSeconds() {
    return running ? (clock.getAsLong() - startedMillis) / 1000 : -1;
  }

  /** Returns keys written by the last checkpoint. */
  long keys() {
    return keys;
  }

  /** Abandons a checkpoint under way and stops the background thread (waits up to 30 s). */
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
  }
}
