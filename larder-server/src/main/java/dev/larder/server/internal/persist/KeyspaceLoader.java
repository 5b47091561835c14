package dev.larder.server.internal.persist;

import dev.larder.internal.bulk.EncodedEntries;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.server.internal.keyspace.Varint;
import dev.larder.wal.LogReplay;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * Puts what recovery reads into a keyspace that is not yet logging: the checkpoint's items (each
 * with a fresh version), then each record's changes in order.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Checkpoint blocks are loaded by one thread per core: a checkpoint holds each key once (or,
 * rarely, a few values a key held after its sequence, any of which will do: the records after it
 * bring the key to its last value), so its blocks can be stored in any order and at once (the cache
 * is thread-safe). Records, whose order matters, are applied on the opening thread once every block
 * is in. A loading thread copies each item of a block once, as the stored key and value (db byte,
 * key; tag, the item version, the rest), into a batch of its own, and hands the whole block's batch
 * to the keyspace, which stores it through the store's bulk path ({@code BulkRestore.restore}):
 * each segment's share of the block under one hold of its lock, no key or value array per item.
 *
 * <p>Versions: a checkpoint item gets the header's item version, reserved when the checkpoint
 * began: above every version given out before it and given to no write (versions need only differ
 * between writes of one key, and the checkpoint holds one write per key); a record's value keeps
 * its own. When done, {@link #finish} puts the keyspace's counter above all of them, so no version
 * from before the restart can name another value after it.
 *
 * <p>Evictions: an EVICT record says "the value of version v was evicted". Its record can come
 * before the PUT of v in the log (a writer applies v, another writer's eviction removes it and logs
 * that, then the first writer logs v; memcached's touch rewrites a value keeping its version), so
 * every EVICT remembers (key, v), and a later PUT of exactly (key, v) removes the key instead of
 * storing v. Such a PUT comes before any other record of the key (its writer held the key's stripe
 * until it was logged), so a PUT of another version, a DELETE or a flush forgets the key's entry:
 * the map holds keys evicted and not written since. A key whose value is still the checkpoint's
 * (the item version) is removed by any EVICT after the checkpoint: an eviction logged after the
 * checkpoint's sequence happened after it began (the evicting command was not in flight when it
 * began), so the checkpoint saw the evicted value, or an older one replaced by a write logged after
 * it, or a newer one whose PUT follows in the log.
 *
 * <p>Sizing: the checkpoint's header gives the keyspace's size when it began, and the keyspace is
 * sized for that many keys before the first item is stored, so that its indexes do not grow (and
 * rehash) step by step as the blocks fill it.
 *
 * <p>Expiry: a value whose expiry is at or before the load's clock is not stored (a record's
 * removes the key instead), so a key that expired while the server was down is gone.
 *
 * <p>Used by the thread that opens the log, once; its block loads also by the loading threads.
 */
final class KeyspaceLoader implements LogReplay, ChangeRecord.Visitor {
  private final Keyspace keyspace;
  private final long now;
  private final LoadProgress progress;
  private final LongAdder items = new LongAdder();
  private final LongAdder expiredSkipped = new LongAdder();
  private final List<Future<?>> blocks = new ArrayList<>();

  /** Evictions whose PUT has not been replayed yet: key to evicted version. */
  private final Map<ByteBuffer, Long> evictedAhead = new HashMap<>();

  private ExecutorService loaders;
  private long itemVersion;
  private long highest;
  private long sequence;

  /**
   * @param keyspace the keyspace to fill, not attached to a log
   * @param now the Unix time in milliseconds that decides what has expired
   * @param progress counts the bytes of the blocks stored and the records replayed
   */
  KeyspaceLoader(Keyspace keyspace, long now, LoadProgress progress) {
    this.keyspace = keyspace;
    this.now = now;
    this.progress = progress;
  }

  @Override
  public void checkpointEntry(long checkpointSequence, byte[] entry) {
    checkpointEntry(checkpointSequence, entry, 0, entry.length);
  }

  /** Reads the entry where the log read it: no copy of a block before its items are copied. */
  @Override
  public void checkpointEntry(long checkpointSequence, byte[] bytes, int offset, int length) {
    if (length > 0 && bytes[offset] == CheckpointBlock.HEADER) {
      read(checkpointSequence, bytes, offset, length);
      return;
    }
    if (loaders == null) {
      loaders =
          Executors.newFixedThreadPool(
              Runtime.getRuntime().availableProcessors(),
              r -> {
                Thread t = new Thread(r, "larder-server-load");
                t.setDaemon(true);
                return t;
              });
    }
    blocks.add(loaders.submit(() -> read(checkpointSequence, bytes, offset, length)));
  }

  private void read(long checkpointSequence, byte[] bytes, int offset, int length) {
    try {
      BlockLoad load = blockLoads.get();
      load.clear();
      CheckpointBlock.read(bytes, offset, length, load);
      load.store();
      progress.loaded(length);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "checkpoint "
              + checkpointSequence
              + " holds an entry this server cannot read: "
              + e.getMessage(),
          e);
    }
  }

  /** A loading thread's batch: the stored keys and values of the block it reads. */
  private final ThreadLocal<BlockLoad> blockLoads = ThreadLocal.withInitial(BlockLoad::new);

  /**
   * Receives one checkpoint entry: the header on the opening thread, a block's items on a loading
   * thread (each thread its own).
   */
  private final class BlockLoad implements CheckpointBlock.Visitor {
    /** Made at the first item: the opening thread, which reads only the header, needs none. */
    private EncodedEntries batch;

    private int expiring;

    /** Forgets what a block read before (one that failed part way) left in the batch. */
    void clear() {
      if (batch != null) {
        batch.clear();
      }
      expiring = 0;
    }

    /** Hands the block's items to the keyspace. */
    void store() {
      if (batch != null && batch.size() > 0) {
        keyspace.restoreAll(batch, expiring);
        items.add(batch.size());
      }
    }

    /** The header, the checkpoint's first entry: read on the opening thread, before any item. */
    @Override
    public void header(long itemVersion, long keys) {
      KeyspaceLoader.this.itemVersion = itemVersion;
      keyspace.presize(keys);
    }

    /** Adds the item, with the header's item version, to the batch unless it has expired. */
    @Override
    public void item(
        int db, byte[] block, int keyOffset, int keyLength, int valueOffset, int valueLength) {
      long expiry = ValueLayout.expiryOfUnversioned(block, valueOffset);
      if (expiry != 0 && expiry <= now) {
        expiredSkipped.increment();
        return;
      }
      if (batch == null) {
        // a block's bytes, and the version each item gets: one allocation for every block
        batch =
            new EncodedEntries(
                CheckpointBlock.TARGET_BYTES / 64, CheckpointBlock.TARGET_BYTES * 9 / 8);
      }
      long version = itemVersion;
      int versionLength = Varint.size(version);
      byte[] b = batch.room(1 + keyLength + valueLength + versionLength);
      int at = batch.end();
      b[at] = (byte) db;
      System.arraycopy(block, keyOffset, b, at + 1, keyLength);
      int value = at + 1 + keyLength;
      b[value] = block[valueOffset];
      int rest = Varint.write(b, value + 1, version);
      System.arraycopy(block, valueOffset + 1, b, rest, valueLength - 1);
      batch.commit(1 + keyLength, valueLength + versionLength);
      if (expiry != 0) {
        expiring++;
      }
    }
  }

  /** Waits until every checkpoint block is in the keyspace; rethrows a loader's failure. */
  private void awaitBlocks() {
    if (loaders == null) {
      return;
    }
    try {
      for (Future<?> f : blocks) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while loading the checkpoint", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      loaders.shutdownNow();
      loaders = null;
      blocks.clear();
    }
  }

  @Override
  public void record(long sequence, int type, byte[] payload) {
    awaitBlocks();
    this.sequence = sequence;
    if (type != ChangeRecord.TYPE) {
      throw new IllegalStateException(
          "log record "
              + sequence
              + " has type "
              + type
              + ", not a server change record ("
              + ChangeRecord.TYPE
              + ")");
    }
    try {
      ChangeRecord.read(payload, this);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "log record " + sequence + " cannot be read: " + e.getMessage(), e);
    }
    progress.loaded(payload.length);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    long version = ValueLayout.versionOf(value);
    highest = Math.max(highest, version);
    Long evicted = evictedAhead.isEmpty() ? null : evictedAhead.remove(ByteBuffer.wrap(key));
    if (evicted != null && evicted == version) {
      // Evicted before this record was appended: the key was gone after it.
      keyspace.restoreDelete(key);
    } else if (expired(value)) {
      keyspace.restoreDelete(key);
      expiredSkipped.increment();
    } else {
      keyspace.restorePut(key, value);
    }
  }

  @Override
  public void delete(byte[] key) {
    if (!evictedAhead.isEmpty()) {
      evictedAhead.remove(ByteBuffer.wrap(key));
    }
    keyspace.restoreDelete(key);
  }

  @Override
  public void evict(byte[] key, long version) {
    long current = keyspace.restoredVersion(key);
    if (current == version || (current == itemVersion && itemVersion != 0)) {
      keyspace.restoreDelete(key);
    }
    evictedAhead.put(ByteBuffer.wrap(key), version);
  }

  @Override
  public void flush(int db) {
    evictedAhead.keySet().removeIf(k -> db < 0 || k.get(0) == db);
    keyspace.restoreFlush(db);
  }

  /**
   * Waits for the checkpoint's blocks (a log with no record after its checkpoint) and puts the
   * keyspace's version counter above every version recovered.
   */
  void finish() {
    awaitBlocks();
    keyspace.restoreSettle();
    keyspace.versionsAbove(Math.max(itemVersion, highest));
  }

  /** Stops the loading threads after a failed recovery. */
  void abandon() {
    if (loaders != null) {
      loaders.shutdownNow();
    }
  }

  /** Returns checkpoint items loaded. */
  long items() {
    return items.sum();
  }

  /** Returns values dropped because they had expired. */
  long expiredSkipped() {
    return expiredSkipped.sum();
  }

  /** Returns the sequence of the last record read, 0 if none. */
  long lastRecord() {
    return sequence;
  }

  private boolean expired(byte[] value) {
    long expiry = ValueLayout.expiryOf(value);
    return expiry != 0 && expiry <= now;
  }
}
