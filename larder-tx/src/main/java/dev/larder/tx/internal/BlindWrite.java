package dev.larder.tx.internal;

import dev.larder.wal.RecordPayload;

/**
 * A blind write (a put or removal outside a transaction) that is being applied on the fast path,
 * without recording the key's superseded state: announced before the path checks for registered
 * snapshots, so that a transaction beginning meanwhile can see the write without the cache
 * (docs/design/transactions.md, "Blind writes on the fast path"). Its log record is appended before
 * it is announced, so an announced write always commits. It writes its own commit payload (one
 * write, {@link CommitRecord#encodeOne}) into the log's buffer. Immutable.
 *
 * @param sequence the commit's sequence
 * @param key the key written
 * @param stored the stored bytes written, or null for a removal
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
public record BlindWrite(long sequence, KeyRef key, byte[] stored) implements RecordPayload {

  @Override
  public int length() {
    return CommitRecord.oneWriteLength(key.cache(), key.key(), stored);
  }

  @Override
  public void writeTo(byte[] out, int offset) {
    CommitRecord.writeOne(out, offset, key.cache(), key.key(), stored);
  }
}
