package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The keyspace's sets or hashes (one store for each type) in both stored forms: packed (one value)
 * and chunked (a head value that is the collection's index by key-hash ranges, and chunk entries of
 * a few KiB each; {@link RangeChunks}). The commands of the type that have a chunk-wise form run
 * here ({@link #edit}, {@link #read}); the others read a chunked collection whole through the
 * keyspace ({@link ChunkStore#materialized}, {@link ChunkStore#updateWhole}). What every chunked
 * type shares is {@link ChunkStore}'s, whose implementation notes give the atomicity argument
 * followed here: every read and change of a chunked collection holds the key's stripe, chunks are
 * written before the head, and the head is replaced by a compare-and-set, the command running again
 * if it lost.
 *
 * <p>Thread-safe.
 */
public final class RangeStore {
  /** A set or hash command: see {@link Keyspace#editSet}. */
  @FunctionalInterface
  public interface Edit<R> {
    /**
     * Runs the command on the key's set or hash.
     *
     * @param before the key's live value (its payload not to be read), or null if absent
     * @param body the set or hash (empty if absent; null if the key holds another type)
     * @return the command's result
     */
    R apply(StoredValue before, RangeBody body);
  }

  private final Keyspace keyspace;
  private final ChunkStore chunks;
  private final ValueType type;
  private final boolean chunking;

  /** Index pages read or written lately, decoded (see {@link DecodedPages}). */
  private final DecodedPages<RangeChunks.Index> pages = new DecodedPages<>();

  /**
   * @param keyspace the keyspace
   * @param chunks the chunk machinery shared by every chunked type
   * @param type the type it stores: set or hash
   * @param chunking whether large collections are chunked (false: every one stays packed)
   */
  RangeStore(Keyspace keyspace, ChunkStore chunks, ValueType type, boolean chunking) {
    this.keyspace = keyspace;
    this.chunks = chunks;
    this.type = type;
    this.chunking = chunking;
  }

  private RangeBody bodyOf(byte[] stored, StoredValue v) {
    if (v == null) {
      return RangeBody.empty(type);
    }
    if (v.type() != type) {
      return null;
    }
    if (!RangeChunks.isHead(type, v.payload())) {
      return RangeBody.packed(type, v.payload());
    }
    RangeChunks.Index index = RangeChunks.Index.decode(type, v.payload());
    ChunkLoader loader = chunks.loader(stored, index.id());
    return RangeBody.chunked(type, index, loader, keptPages(stored, index.id(), loader));
  }

  /** Reads index pages from those kept decoded, else from the store (and keeps them). */
  private RangeBody.PageReader keptPages(byte[] stored, long id, ChunkLoader loader) {
    RangeBody.PageReader decoding = RangeBody.decodingPages(loader);
    return (number, nextNumber) -> {
      RangeChunks.Index kept = pages.get(stored, id, number);
      if (kept != null) {
        return kept;
      }
      RangeChunks.Index read = decoding.read(number, nextNumber);
      if (read != null) {
        pages.put(stored, id, number, read);
      }
      return read;
    };
  }

  /**
   * Runs a read-only command (see {@link Keyspace#readSet}): a packed collection without a lock, a
   * chunked one under its stripe.
   */
  <R> R read(byte[] stored, Edit<R> read) {
    OpenCollections tier = keyspace.openIfAny();
    if (tier != null && tier.get(stored) != null) {
      ReentrantLock stripe = keyspace.stripe(stored);
      stripe.lock();
      try {
        ChunkStore.Outcome<R> served = served(tier, stored, read, null);
        if (served != null) {
          keyspace.countRead(true);
          return served.result();
        }
      } finally {
        stripe.unlock();
      }
    }
    ChunkStore.Live live = chunks.live(stored);
    if (live.value() != null && ChunkStore.isHead(live.value())) {
      return readChunked(stored, read);
    }
    if (live.expired()) {
      chunks.removeExpired(stored, live.raw());
    }
    StoredValue v = live.value();
    keyspace.countRead(v != null);
    return read.apply(v, v == null ? null : bodyOf(stored, v));
  }

  private <R> R readChunked(byte[] stored, Edit<R> read) {
    return chunks.readOpening(
        stored,
        live -> servedOpening(stored, live, read, null),
        v -> read.apply(v, v == null ? null : bodyOf(stored, v)));
  }

  /**
   * Opens the chunked collection {@code live} holds if its key is hot (reads count as changes do: a
   * tag set or a lookup table read many times a second is as hot as one written) and the tier has
   * room, and runs the command on it; null if it does not open (under the key's stripe).
   */
  private <R> ChunkStore.Outcome<R> servedOpening(
      byte[] stored, ChunkStore.Live live, Edit<R> edit, ChangeSink sink) {
    StoredValue v = live.value();
    if (v == null || v.type() != type || !RangeChunks.isHead(type, v.payload())) {
      return null;
    }
    OpenCollections tier = keyspace.tierToOpen(stored, sink);
    return tier != null && open(stored, live, tier) ? served(tier, stored, edit, sink) : null;
  }

  /** Runs a command that may change the collection: see {@link Keyspace#editSet}. */
  <R> R edit(byte[] stored, Edit<R> edit) {
    return chunks.editLocked(stored, sink -> attempt(stored, edit, sink));
  }

  /** One run of a command under the stripe; null if the head changed before it was replaced. */
  private <R> ChunkStore.Outcome<R> attempt(byte[] stored, Edit<R> edit, ChangeSink sink) {
    OpenCollections any = keyspace.openIfAny();
    if (any != null) {
      ChunkStore.Outcome<R> served = served(any, stored, edit, sink);
      if (served != null) {
        return served;
      }
    }
    ChunkStore.Live live = chunks.live(stored);
    StoredValue before = live.value();
    ChunkStore.Outcome<R> opened = servedOpening(stored, live, edit, sink);
    if (opened != null) {
      return opened;
    }
    RangeBody body = before == null ? RangeBody.empty(type) : bodyOf(stored, before);
    R result = edit.apply(before, body);
    if (body == null || !body.changed()) {
      return new ChunkStore.Outcome<>(result, null);
    }
    if (body.size() == 0) {
      return chunks.deleteEmptied(stored, live, result, sink);
    }
    StoredValue meta =
        // A new key's header; its payload is replaced below.
        before != null ? before : new StoredValue(type, 0, 0, 0, RangeCodec.NO_VALUE);
    return writeBack(stored, live, meta, body, result, sink);
  }

  /**
   * Runs a command on the key's open collection, if it has one of this type whose head the store
   * still holds (under the key's stripe); null if not (an open collection whose head was replaced
   * or expired is dropped first), for the command to run on the store.
   */
  private <R> ChunkStore.Outcome<R> served(
      OpenCollections tier, byte[] stored, Edit<R> edit, ChangeSink sink) {
    OpenCollections.Open o = tier.get(stored);
    if (o == null || o.type != type) {
      return null;
    }
    if (!tier.servable(o)) {
      return null;
    }
    long before = o.body.changes();
    R result = applyWhole(o.body, o.head, edit);
    if (o.body.changes() == before) {
      o.used = true;
      return new ChunkStore.Outcome<>(result, null);
    }
    if (o.body.size() == 0) {
      tier.drop(o);
      return chunks.deleteEmptied(
          stored, new ChunkStore.Live(o.headRaw, o.head, false), result, sink);
    }
    o.body.splitTouched();
    if (tier.used(o) && tier.over()) {
      close(o); // the tier is over its budget: this key leaves it
    }
    // The key's type and expiry are the head's; its version is given when it closes.
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(o.head, o.head, false));
  }

  /**
   * Runs a command on an open collection all or nothing: a command that throws leaves the body as
   * it found it (the store path gets this by writing nothing; here the body is the collection).
   */
  private static <R> R applyWhole(RangeBody body, StoredValue head, Edit<R> edit) {
    body.beginUndo();
    try {
      R result = edit.apply(head, body);
      body.endUndo();
      return result;
    } catch (RuntimeException | Error e) {
      body.undo();
      throw e;
    }
  }

  /**
   * Opens the chunked collection {@code live} holds (under its stripe) if the tier has room for it;
   * returns whether it did.
   */
  private boolean open(byte[] stored, ChunkStore.Live live, OpenCollections tier) {
    StoredValue head = live.value();
    RangeChunks.Index index = RangeChunks.Index.decode(type, head.payload());
    long size = 0;
    for (int i = 0; i < index.entries(); i++) {
      size +=
          index.bytes(i)
              + (long) OpenCollections.SEGMENT_OVERHEAD * Math.max(1, index.pageChunks(i));
    }
    if (!tier.room(size)) {
      return false;
    }
    RangeBody body = bodyOf(stored, head);
    body.loadAll();
    tier.add(new OpenCollections.Open(stored, type, live.raw(), head, body));
    return true;
  }

  /**
   * Closes an open collection of this type (under its key's stripe): writes what its commands
   * changed as one change of the key, if the store still holds the head it was opened from, and
   * drops it from the tier.
   */
  void close(OpenCollections.Open o) {
    keyspace.openCollections().drop(o);
    if (!o.body.changed()) {
      return;
    }
    if (!keyspace.openCollections().holdsHead(o)) {
      return; // replaced since it opened: the replacement came after every change it holds
    }
    ChunkStore.Live live = new ChunkStore.Live(o.headRaw, o.head, false);
    // A lost compare-and-set (a blind write since the check) removed the fresh chunks; whoever
    // replaced the head releases the chunks it named, written in place here, once this stripe is
    // left.
    writeBack(o.stored, live, o.head, o.body, Boolean.TRUE, keyspace.sinkIfLogged());
  }

  /**
   * Stores a whole collection of this type at a key, replacing whatever it holds (RESTORE of a
   * large set or hash): in chunks when its size calls for them, so that a large one never goes into
   * the store as one value, which might not fit in a segment. One change of the key.
   *
   * @param stored the stored key
   * @param payload the collection's packed payload, well formed and not empty
   * @param expiresAtMillis its absolute expiry, 0 for none
   */
  void replaceWhole(byte[] stored, byte[] payload, long expiresAtMillis) {
    chunks.editLocked(
        stored,
        sink -> {
          RangeBody body = RangeBody.packed(type, payload);
          // The body offers no other way to mark its one segment changed, and only a changed
          // segment is split into chunks when written: take one entry out and put it back (two
          // copies of the payload, against the collection written whole).
          byte[][] first = body.entry(0);
          body.remove(first[0]);
          body.put(first[0], first[1]);
          ChunkStore.Live live = chunks.live(stored);
          StoredValue meta = new StoredValue(type, 0, expiresAtMillis, 0, RangeCodec.NO_VALUE);
          return writeBack(stored, live, meta, body, Boolean.TRUE, sink);
        });
  }

  /**
   * Writes a changed collection back over the key's live value {@code live}: packed or in chunks as
   * its size says, under {@code meta}'s header; null if the key changed since {@code live} was
   * read.
   */
  private <R> ChunkStore.Outcome<R> writeBack(
      byte[] stored,
      ChunkStore.Live live,
      StoredValue meta,
      RangeBody body,
      R result,
      ChangeSink sink) {
    StoredValue before = live.value();
    boolean packed =
        !chunking
            || (body.wasChunked()
                ? body.bytes() < RangeBody.CHUNKED_MIN
                : body.bytes() <= RangeBody.PACKED_MAX);
    body.normalize(packed);
    RangeChunks.Index old = body.index();
    List<byte[]> written = new ArrayList<>();
    RangeChunks.Index now = packed ? null : writeChunks(stored, body, old, written, sink);
    byte[] payload = packed ? body.packedPayload() : now.encode(type);
    StoredValue after = meta.withPayload(payload).withVersion(keyspace.nextVersion());
    byte[] bytes = ValueLayout.encode(after);
    if (!chunks.replaceHead(stored, live.raw(), bytes, written, sink)) {
      return null; // replaced or evicted since it was read: run again
    }
    if (old != null && now == null) {
      chunks.releaseChunks(stored, live.raw(), sink); // packed again: every chunk and page goes
    } else if (old != null) {
      long id = old.id();
      body.removed(number -> chunks.removeChunk(ChunkKey.of(stored, id, number), sink));
    } else if (live.raw() != null) {
      chunks.releaseIfHead(stored, live.raw(), sink);
    }
    if (now != null) {
      long id = now.id();
      body.madePages((page, number) -> pages.put(stored, id, number, page));
    }
    if (after.volatileKey()) {
      keyspace.countExpiring();
    }
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(before, after, live.expired()));
  }

  /**
   * Writes a chunked collection's changed chunks and new index pages and returns its new index;
   * {@code written} gets the stored keys of those written under fresh numbers.
   */
  private RangeChunks.Index writeChunks(
      byte[] stored, RangeBody body, RangeChunks.Index old, List<byte[]> written, ChangeSink sink) {
    RangeChunks.Index index;
    if (old != null) {
      index = new RangeChunks.Index(old.id(), old.nextNumber());
    } else {
      index = new RangeChunks.Index(keyspace.nextVersion(), 0);
      keyspace.noteChunked();
    }
    long id = index.id();
    return body.write(
        index,
        (number, payload, fresh) -> {
          byte[] key = chunks.writeChunk(stored, type, id, number, payload, sink);
          if (fresh) {
            written.add(key);
          }
        });
  }
}
