package dev.larder.server.internal.persist;

import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueLayout;
import dev.larder.wal.LogReplay;

/**
 * Puts what recovery reads into a keyspace that is not yet logging: the checkpoint's items (each
 * with a fresh version), then each record's changes in order.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Versions: a checkpoint item gets the header's ceiling plus its position, so its version is
 * above every version given out before the checkpoint began; a record's value keeps its own. When
 * done, {@link #finish} puts the keyspace's counter above all of them, so no version from before
 * the restart can name another value after it.
 *
 * <p>Expiry: a value whose expiry is at or before the load's clock is not stored (a record's
 * removes the key instead), so a key that expired while the server was down is gone.
 *
 * <p>Used by the thread that opens the log, once.
 */
final class KeyspaceLoader implements LogReplay, ChangeRecord.Visitor, CheckpointBlock.Visitor {
  private final Keyspace keyspace;
  private final long now;
  private long ceiling;
  private long nextFresh;
  private long highest;
  private long items;
  private long expiredSkipped;
  private long sequence;

  /**
   * @param keyspace the keyspace to fill, not attached to a log
   * @param now the Unix time in milliseconds that decides what has expired
   */
  KeyspaceLoader(Keyspace keyspace, long now) {
    this.keyspace = keyspace;
    this.now = now;
  }

  @Override
  public void checkpointEntry(long checkpointSequence, byte[] entry) {
    try {
      CheckpointBlock.read(entry, this);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("checkpoint " + checkpointSequence
          + " holds an entry this server cannot read: " + e.getMessage(), e);
    }
  }

  @Override
  public void record(long sequence, int type, byte[] payload) {
    this.sequence = sequence;
    if (type != ChangeRecord.TYPE) {
      throw new IllegalStateException("log record " + sequence + " has type " + type
          + ", not a server change record (" + ChangeRecord.TYPE + ")");
    }
    try {
      ChangeRecord.read(payload, this);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("log record " + sequence + " cannot be read: "
          + e.getMessage(), e);
    }
  }

  @Override
  public void header(long versionCeiling) {
    this.ceiling = versionCeiling;
    this.nextFresh = versionCeiling;
  }

  @Override
  public void item(byte[] storedKey, byte[] block, int valueOffset, int valueLength) {
    long version = ++nextFresh;
    byte[] value = ValueLayout.withVersion(block, valueOffset, valueLength, version);
    if (expired(value)) {
      expiredSkipped++;
      return;
    }
    keyspace.restorePut(storedKey, value);
    items++;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    highest = Math.max(highest, ValueLayout.versionOf(value));
    if (expired(value)) {
      keyspace.restoreDelete(key);
      expiredSkipped++;
    } else {
      keyspace.restorePut(key, value);
    }
  }

  @Override
  public void delete(byte[] key) {
    keyspace.restoreDelete(key);
  }

  @Override
  public void evict(byte[] key, long version) {
    keyspace.restoreEvict(key, version);
  }

  @Override
  public void flush(int db) {
    keyspace.restoreFlush(db);
  }

  /** Puts the keyspace's version counter above every version recovered. */
  void finish() {
    keyspace.versionsAbove(Math.max(Math.max(ceiling, nextFresh), highest));
  }

  /** @return checkpoint items loaded */
  long items() {
    return items;
  }

  /** @return values dropped because they had expired */
  long expiredSkipped() {
    return expiredSkipped;
  }

  /** @return the sequence of the last record read, 0 if none */
  long lastRecord() {
    return sequence;
  }

  private boolean expired(byte[] value) {
    long expiry = ValueLayout.expiryOf(value);
    return expiry != 0 && expiry <= now;
  }
}
