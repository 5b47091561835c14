package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;

/**
 * The keyspace's lists in both stored forms: packed (one value) and chunked (a head value that is
 * the list's index, and chunk entries of a few KiB each; {@link ListChunks}). The list commands run
 * here ({@link #edit}, {@link #read}); what every chunked type shares (eviction follow-up, release
 * of a head's chunks, the whole-key read and update, recovery's settle) is {@link ChunkStore}'s,
 * whose implementation notes give the atomicity argument these commands follow.
 *
 * <p>Thread-safe.
 */
public final class ListStore {
  /** A list command: see {@link Keyspace#editList}. */
  @FunctionalInterface
  public interface Edit<R> {
    /**
     * Runs the command on the key's list.
     *
     * @param before the key's live value (its payload not to be read), or null if absent
     * @param list the list (empty if absent; null for a read of another type)
     * @return the command's result
     */
    R apply(StoredValue before, ListBody list);
  }

  private final Keyspace keyspace;
  private final ChunkStore chunks;
  private final boolean chunking;

  /**
   * @param keyspace the keyspace
   * @param chunks the chunk machinery shared by every chunked type
   * @param chunking whether large lists are chunked (false: every list stays packed)
   */
  ListStore(Keyspace keyspace, ChunkStore chunks, boolean chunking) {
    this.keyspace = keyspace;
    this.chunks = chunks;
    this.chunking = chunking;
  }

  private ListBody bodyOf(byte[] stored, StoredValue v) {
    if (v == null) {
      return ListBody.empty();
    }
    if (!ListChunks.isHead(v.payload())) {
      return ListBody.packed(v.payload());
    }
    ListChunks.Index index = ListChunks.Index.decode(v.payload());
    return ListBody.chunked(index, chunks.loader(stored, index.id()));
  }

  /**
   * Runs a read-only list command (see {@link Keyspace#readList}): a packed list without a lock, a
   * chunked one under its stripe.
   */
  <R> R read(byte[] stored, Edit<R> read) {
    ChunkStore.Live live = chunks.live(stored);
    if (live.value() != null
        && live.value().type() == ValueType.LIST
        && ListChunks.isHead(live.value().payload())) {
      return readChunked(stored, read);
    }
    if (live.expired()) {
      chunks.removeExpired(stored, live.raw());
    }
    StoredValue v = live.value();
    keyspace.countRead(v != null);
    return read.apply(v, v == null || v.type() != ValueType.LIST ? null : bodyOf(stored, v));
  }

  private <R> R readChunked(byte[] stored, Edit<R> read) {
    return chunks.readLocked(
        stored,
        v -> read.apply(v, v == null || v.type() != ValueType.LIST ? null : bodyOf(stored, v)));
  }

  /** Runs a list command that may change the list: see {@link Keyspace#editList}. */
  <R> R edit(byte[] stored, Edit<R> edit) {
    return chunks.editLocked(stored, sink -> attempt(stored, edit, sink));
  }

  /** One run of a command under the stripe; null if the head changed before it was replaced. */
  private <R> ChunkStore.Outcome<R> attempt(byte[] stored, Edit<R> edit, ChangeSink sink) {
    ChunkStore.Live live = chunks.live(stored);
    StoredValue before = live.value();
    boolean isList = before != null && before.type() == ValueType.LIST;
    ListBody list = isList ? bodyOf(stored, before) : ListBody.empty();
    R result = edit.apply(before, list);
    if (!list.changed()) {
      return new ChunkStore.Outcome<>(result, null);
    }
    if (before != null && !isList) {
      throw new IllegalStateException("a list command changed a key of another type");
    }
    if (list.size() == 0) {
      return chunks.deleteEmptied(stored, live, result, sink);
    }
    StoredValue meta =
        before != null ? before : new StoredValue(ValueType.LIST, 0, 0, 0, PACKED_ONE);
    boolean packed =
        !chunking
            || (list.wasChunked()
                ? list.bytes() < ListBody.CHUNKED_MIN
                : list.bytes() <= ListBody.PACKED_MAX);
    list.normalize(packed);
    ListChunks.Index old = list.index();
    byte[] payload;
    List<byte[]> written = new ArrayList<>();
    ListChunks.Index now = null;
    if (packed) {
      payload = list.packedPayload();
    } else {
      now = writeChunks(stored, list, old, written, sink);
      payload = now.encode();
    }
    StoredValue after = meta.withPayload(payload).withVersion(keyspace.nextVersion());
    byte[] bytes = ValueLayout.encode(after);
    if (!chunks.replaceHead(stored, live.raw(), bytes, written, sink)) {
      return null; // replaced or evicted since it was read: run again
    }
    if (old != null && now == null) {
      chunks.releaseChunks(stored, live.raw(), sink); // packed again: every chunk and page goes
    } else if (old != null) {
      ChunkLoader read = chunks.loader(stored, old.id());
      long id = old.id();
      if (!list.removed(
          read::load, number -> chunks.removeChunk(ChunkKey.of(stored, id, number), sink))) {
        // a page dropped unread was gone: find its chunks by a walk
        chunks.dropUnnamedChunks(stored);
      }
    } else if (live.raw() != null) {
      chunks.releaseIfHead(stored, live.raw(), sink);
    }
    if (after.volatileKey()) {
      keyspace.countExpiring();
    }
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(before, after, live.expired()));
  }

  private static final byte[] PACKED_ONE = {ListPayload.PACKED};

  /**
   * Writes a chunked list's changed chunks and new index pages and returns its new index; {@code
   * written} gets the stored keys of those written under fresh numbers.
   */
  private ListChunks.Index writeChunks(
      byte[] stored, ListBody list, ListChunks.Index old, List<byte[]> written, ChangeSink sink) {
    ListChunks.Index index;
    if (old != null) {
      index = new ListChunks.Index(old.id(), old.nextNumber());
    } else {
      index = new ListChunks.Index(keyspace.nextVersion(), 0);
      keyspace.noteChunked();
    }
    long id = index.id();
    return list.write(
        index,
        (number, payload, fresh) -> {
          byte[] key = chunks.writeChunk(stored, ValueType.LIST, id, number, payload, sink);
          if (fresh) {
            written.add(key);
          }
        });
  }
}
