package dev.larder.server.internal.memcache;

import dev.larder.server.internal.keyspace.KeyObserver;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memcached-only server state: the counters that {@code stats} reports, the flush a {@code
 * flush_all <time>} left pending (memcached keeps one flush time: a later flush_all replaces it).
 * Thread-safe.
 *
 * <p>It also hears the keyspace's expiries and evictions ({@link KeyObserver}): an eviction of an
 * item of database 0 is logged to the {@code watch evictions} watchers, and an expired item a
 * memcached fetch removed is counted as {@code get_expired}.
 */
public final class MemcacheStats implements KeyObserver {
  final LongAdder cmdGet = new LongAdder();
  final LongAdder cmdSet = new LongAdder();
  final LongAdder cmdTouch = new LongAdder();
  final LongAdder cmdFlush = new LongAdder();
  final LongAdder getHits = new LongAdder();
  final LongAdder getMisses = new LongAdder();
  final LongAdder touchHits = new LongAdder();
  final LongAdder touchMisses = new LongAdder();
  final LongAdder cmdMeta = new LongAdder();
  final LongAdder deleteHits = new LongAdder();
  final LongAdder deleteMisses = new LongAdder();
  final LongAdder incrHits = new LongAdder();
  final LongAdder incrMisses = new LongAdder();
  final LongAdder decrHits = new LongAdder();
  final LongAdder decrMisses = new LongAdder();
  final LongAdder casHits = new LongAdder();
  final LongAdder casMisses = new LongAdder();
  final LongAdder casBadval = new LongAdder();
  final LongAdder storeTooLarge = new LongAdder();
  final LongAdder storeNoMemory = new LongAdder();
  final LongAdder totalItems = new LongAdder();
  final LongAdder getExpired = new LongAdder();
  final LongAdder bytesRead = new LongAdder();
  final LongAdder bytesWritten = new LongAdder();
  final LongAdder authCmds = new LongAdder();
  final LongAdder authErrors = new LongAdder();

  /** The {@code watch} connections. */
  final MemcacheWatchers watchers = new MemcacheWatchers();

  /**
   * The stored key (database byte, then key) of the last expired item the keyspace removed on this
   * thread, until a fetch that missed reads it: the keyspace tells of the removal on the fetching
   * thread, inside the fetch.
   */
  private static final ThreadLocal<byte[]> LAST_EXPIRED = new ThreadLocal<>();

  private ScheduledFuture<?> pendingFlush;

  /** Per-prefix counts of {@code stats detail}. */
  final PrefixStats detail = new PrefixStats();

  /** The level the last {@code verbosity} command set (Larder logs the same at every level). */
  volatile long verbosity;

  /** An open memcached connection, for {@code stats conns}. */
  interface Connection {
    /** The peer's address, {@code host:port}. */
    String address();

    /** When its last command arrived, in Unix milliseconds. */
    long lastCommandMillis();

    /**
     * Its state in memcached's words: {@code conn_nread} while a data block is arriving, {@code
     * conn_watch} once it watches the log, else {@code conn_parse_cmd}.
     */
    String state();
  }

  private final java.util.concurrent.ConcurrentSkipListMap<Long, Connection> connections =
      new java.util.concurrent.ConcurrentSkipListMap<>();
  private final java.util.concurrent.atomic.AtomicLong connectionIds =
      new java.util.concurrent.atomic.AtomicLong();

  /** Registers an open connection; returns its id (1 up; 0 is the listener). */
  long opened(Connection c) {
    long id = connectionIds.incrementAndGet();
    connections.put(id, c);
    return id;
  }

  void closed(long id) {
    connections.remove(id);
  }

  void forEachConnection(java.util.function.BiConsumer<Long, Connection> action) {
    connections.forEach(action);
  }

  /** Every counter, in the order {@code stats} shows them after the connection figures. */
  private final LongAdder[] all = {
    cmdGet,
    cmdSet,
    cmdTouch,
    cmdFlush,
    getHits,
    getMisses,
    touchHits,
    touchMisses,
    cmdMeta,
    deleteHits,
    deleteMisses,
    incrHits,
    incrMisses,
    decrHits,
    decrMisses,
    casHits,
    casMisses,
    casBadval,
    storeTooLarge,
    storeNoMemory,
    totalItems,
    getExpired,
    bytesRead,
    bytesWritten,
    authCmds,
    authErrors
  };

  /**
   * Counts a fetch of database 0 that found nothing: a {@code get_expired} if the item under the
   * key had expired and this fetch removed it.
   *
   * @param key the key fetched
   */
  void missed(byte[] key) {
    byte[] last = LAST_EXPIRED.get();
    if (last != null) {
      LAST_EXPIRED.remove();
      if (last.length == key.length + 1
          && last[0] == MemcacheSession.DB
          && Arrays.equals(last, 1, last.length, key, 0, key.length)) {
        getExpired.increment();
      }
    }
  }

  @Override
  public void changed(byte[] storedKey, int how) {}

  @Override
  public void expired(byte[] storedKey) {
    LAST_EXPIRED.set(storedKey);
  }

  @Override
  public void evicted(byte[] storedKey) {
    if (storedKey.length > 0
        && storedKey[0] == MemcacheSession.DB
        && watchers.watching(MemcacheWatchers.EVICTIONS)) {
      watchers.evicted(Arrays.copyOfRange(storedKey, 1, storedKey.length));
    }
  }

  @Override
  public void flushed(int db) {}

  /** Counts an arithmetic's outcome as memcached's incr/decr hits and misses. */
  void arithmetic(boolean incr, boolean hit) {
    (incr ? (hit ? incrHits : incrMisses) : (hit ? decrHits : decrMisses)).increment();
  }

  /** Counts a CAS store's outcome: stored, not found, or a CAS that did not match. */
  void cas(ItemStore.Outcome outcome) {
    switch (outcome) {
      case STORED -> casHits.increment();
      case NOT_FOUND -> casMisses.increment();
      case EXISTS -> casBadval.increment();
      default -> {}
    }
  }

  void reset() {
    for (LongAdder a : all) {
      a.reset();
    }
    detail.clear();
  }

  /**
   * Cancels a pending flush and runs {@code flush} now, or after a delay.
   *
   * @param scheduler where to run it later, or null to run it now
   * @param delayMillis the delay, when scheduler is not null
   * @param flush the flush
   */
  synchronized void scheduleFlush(
      ScheduledExecutorService scheduler, long delayMillis, Runnable flush) {
    if (pendingFlush != null) {
      pendingFlush.cancel(false);
      pendingFlush = null;
    }
    if (scheduler == null) {
      flush.run();
    } else {
      pendingFlush = scheduler.schedule(flush, delayMillis, TimeUnit.MILLISECONDS);
    }
  }
}
