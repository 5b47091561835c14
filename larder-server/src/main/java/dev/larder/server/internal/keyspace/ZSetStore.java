package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The keyspace's sorted sets in both stored forms: packed (one value) and chunked (a head value
 * indexing a by-score and a by-member side through index pages, and chunk entries of a few KiB
 * each; {@link ZSetChunks}). The sorted-set commands that have a chunk-wise form run here ({@link
 * #edit}, {@link #read}); the others read a chunked set whole through the keyspace ({@link
 * ChunkStore#materialized}, {@link ChunkStore#updateWhole}). What every chunked type shares is
 * {@link ChunkStore}'s, whose implementation notes give the atomicity argument followed here: every
 * read and change of a chunked set holds the key's stripe, chunks and pages are written before the
 * head, and the head is replaced by a compare-and-set, the command running again if it lost.
 *
 * <p>A change's write-back: the chunks it changed are overwritten in place (numbers kept), the
 * pages it changed and the chunks it made are written under fresh numbers; if the head's swap
 * fails, the fresh ones are removed and the old head's pages, untouched, still name every chunk it
 * had (including those overwritten), for whoever replaced it to remove. Once the swap is done, the
 * numbers the change stopped using (old pages, emptied or merged chunks) are removed.
 *
 * <p>Thread-safe.
 */
public final class ZSetStore {
  /** A sorted-set command: see {@link Keyspace#editZSet}. */
  @FunctionalInterface
  public interface Edit<R> {
    /**
     * Runs the command on the key's sorted set.
     *
     * @param before the key's live value (its payload not to be read), or null if absent
     * @param body the sorted set (empty if absent; null if the key holds another type)
     * @return the command's result
     */
    R apply(StoredValue before, ZSetBody body);
  }

  /** A chunked set whose next number passes this is written afresh under a new collection id. */
  static final int RENUMBER_AT = 1 << 30;

  private static final byte[] EMPTY = {ZSetPayload.PACKED, 0};

  private final Keyspace keyspace;
  private final ChunkStore chunks;
  private final boolean chunking;

  /** Index pages read or written lately, decoded (see {@link DecodedPages}). */
  private final DecodedPages<List<ZSetChunks.Ref>> pages = new DecodedPages<>();

  /**
   * @param keyspace the keyspace
   * @param chunks the chunk machinery shared by every chunked type
   * @param chunking whether large sorted sets are chunked (false: every one stays packed)
   */
  ZSetStore(Keyspace keyspace, ChunkStore chunks, boolean chunking) {
    this.keyspace = keyspace;
    this.chunks = chunks;
    this.chunking = chunking;
  }

  private ZSetBody bodyOf(byte[] stored, StoredValue v) {
    if (v == null) {
      return ZSetBody.empty();
    }
    if (v.type() != ValueType.ZSET) {
      return null;
    }
    if (!ZSetChunks.isHead(v.payload())) {
      return ZSetBody.packed(v.payload());
    }
    ZSetChunks.Index index = ZSetChunks.Index.decode(v.payload());
    ChunkLoader loader = chunks.loader(stored, index.id());
    return ZSetBody.chunked(index, loader, keptPages(stored, index.id(), loader));
  }

  /** Reads index pages from those kept decoded, else from the store (and keeps them). */
  private ZSetSide.PageReader keptPages(byte[] stored, long id, ChunkLoader loader) {
    ZSetSide.PageReader decoding = ZSetSide.decodingPages(loader);
    return (number, nextNumber) -> {
      List<ZSetChunks.Ref> kept = pages.get(stored, id, number);
      if (kept != null) {
        return kept;
      }
      List<ZSetChunks.Ref> read = decoding.read(number, nextNumber);
      if (read != null) {
        read = List.copyOf(read);
        pages.put(stored, id, number, read);
      }
      return read;
    };
  }

  /**
   * Runs a read-only command (see {@link Keyspace#readZSet}): a packed set without a lock, a
   * chunked one under its stripe.
   */
  <R> R read(byte[] stored, Edit<R> read) {
    OpenCollections tier = keyspace.openIfAny();
    if (tier != null && tier.get(stored) != null) {
      ReentrantLock stripe = keyspace.stripe(stored);
      stripe.lock();
      try {
        ChunkStore.Outcome<R> served = served(stored, read, null);
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
      return chunks.readOpening(
          stored,
          locked -> servedOpening(stored, locked, read, null),
          v -> read.apply(v, v == null ? null : bodyOf(stored, v)));
    }
    if (live.expired()) {
      chunks.removeExpired(stored, live.raw());
    }
    StoredValue v = live.value();
    keyspace.countRead(v != null);
    return read.apply(v, v == null ? null : bodyOf(stored, v));
  }

  /** Runs a command that may change the sorted set: see {@link Keyspace#editZSet}. */
  <R> R edit(byte[] stored, Edit<R> edit) {
    return chunks.editLocked(stored, sink -> attempt(stored, edit, sink));
  }

  /** One run of a command under the stripe; null if the head changed before it was replaced. */
  private <R> ChunkStore.Outcome<R> attempt(byte[] stored, Edit<R> edit, ChangeSink sink) {
    OpenCollections tier = keyspace.openCollections(); // null on a clustered keyspace
    if (tier != null && tier.any()) {
      ChunkStore.Outcome<R> served = served(stored, edit, sink);
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
    ZSetBody body = before == null ? ZSetBody.empty() : bodyOf(stored, before);
    R result = edit.apply(before, body);
    if (body == null || !body.changed()) {
      return new ChunkStore.Outcome<>(result, null);
    }
    if (body.size() == 0) {
      return chunks.deleteEmptied(stored, live, result, sink);
    }
    StoredValue meta = before != null ? before : new StoredValue(ValueType.ZSET, 0, 0, 0, EMPTY);
    return writeBack(stored, live, meta, body, result, sink);
  }

  /**
   * Runs a command on the key's open sorted set, if it has one whose head the store still holds
   * (under the key's stripe); null if not (an open set whose head was replaced or expired is
   * dropped first), for the command to run on the store.
   */
  private <R> ChunkStore.Outcome<R> served(byte[] stored, Edit<R> edit, ChangeSink sink) {
    OpenCollections tier = keyspace.openCollections();
    OpenCollections.Open o = tier.get(stored);
    if (o == null || o.zset == null) {
      return null;
    }
    if (!tier.servable(o)) {
      return null;
    }
    long before = o.zset.changes();
    R result;
    try {
      result = edit.apply(o.head, o.zset);
    } finally {
      o.zset.settle(); // what a read or a split decoded goes back to the payload form
    }
    if (o.zset.changes() == before) {
      o.used = true;
      return new ChunkStore.Outcome<>(result, null);
    }
    if (o.zset.size() == 0) {
      tier.drop(o);
      return chunks.deleteEmptied(
          stored, new ChunkStore.Live(o.headRaw, o.head, false), result, sink);
    }
    if (tier.used(o) && tier.over()) {
      close(o); // the tier is over its budget: this key leaves it
    }
    // The key's type and expiry are the head's; its version is given when it closes.
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(o.head, o.head, false));
  }

  /**
   * Opens the chunked sorted set {@code live} holds if its key is hot (reads count as changes do: a
   * leaderboard read many times a second is as hot as one written) and the tier has room, and runs
   * the command on it; null if it does not open (under the key's stripe).
   */
  private <R> ChunkStore.Outcome<R> servedOpening(
      byte[] stored, ChunkStore.Live live, Edit<R> edit, ChangeSink sink) {
    StoredValue v = live.value();
    if (v == null || v.type() != ValueType.ZSET || !ZSetChunks.isHead(v.payload())) {
      return null;
    }
    OpenCollections tier = keyspace.tierToOpen(stored, sink);
    return tier != null && open(stored, live, tier) ? served(stored, edit, sink) : null;
  }

  /**
   * Opens the chunked sorted set {@code live} holds (under its stripe) if the tier has room for it;
   * returns whether it did. Its size is estimated from the head's page refs (bytes on both sides,
   * and a chunk for every half-full chunk's bytes) before any chunk is read.
   */
  private boolean open(byte[] stored, ChunkStore.Live live, OpenCollections tier) {
    StoredValue head = live.value();
    ZSetChunks.Index index = ZSetChunks.Index.decode(head.payload());
    long size = 0;
    for (List<ZSetChunks.Ref> side : List.of(index.byScore(), index.byMember())) {
      for (ZSetChunks.Ref page : side) {
        long chunksOf = 1L + page.bytes() / (ZSetSide.CHUNK_BYTES / 2);
        size += page.bytes() + OpenCollections.SEGMENT_OVERHEAD * (1 + chunksOf);
      }
    }
    if (!tier.room(size)) {
      return false;
    }
    ZSetBody body = bodyOf(stored, head);
    body.loadAll();
    tier.add(new OpenCollections.Open(stored, live.raw(), head, body));
    return true;
  }

  /**
   * Closes an open sorted set (under its key's stripe): writes what its commands changed as one
   * change of the key, if the store still holds the head it was opened from, and drops it from the
   * tier.
   */
  void close(OpenCollections.Open o) {
    keyspace.openCollections().drop(o);
    if (!o.zset.changed()) {
      return;
    }
    if (!keyspace.openCollections().holdsHead(o)) {
      return; // replaced since it opened: the replacement came after every change it holds
    }
    ChunkStore.Live live = new ChunkStore.Live(o.headRaw, o.head, false);
    // A lost compare-and-set (a blind write since the check) removed the fresh chunks and pages;
    // whoever replaced the head releases the ones it named, rewritten in place here, once this
    // stripe is left.
    writeBack(o.stored, live, o.head, o.zset, Boolean.TRUE, keyspace.sinkIfLogged());
  }

  /**
   * Writes a changed sorted set back over the key's live value {@code live}: packed or in chunks as
   * its size says, under {@code meta}'s header; null if the key changed since {@code live} was
   * read.
   */
  private <R> ChunkStore.Outcome<R> writeBack(
      byte[] stored,
      ChunkStore.Live live,
      StoredValue meta,
      ZSetBody body,
      R result,
      ChangeSink sink) {
    StoredValue before = live.value();
    boolean packed =
        !chunking
            || (body.wasChunked()
                ? body.bytes() < ZSetBody.CHUNKED_MIN
                : body.bytes() <= ZSetBody.PACKED_MAX);
    ZSetChunks.Index old = body.index();
    boolean afresh = !packed && (old == null || old.nextNumber() > RENUMBER_AT);
    List<byte[]> written = new ArrayList<>();
    byte[] payload;
    long headId = 0;
    if (packed) {
      payload = body.packedPayload();
    } else {
      ZSetChunks.Index head;
      if (afresh) {
        body.rebuild();
        head =
            new ZSetChunks.Index(keyspace.nextVersion(), 0, new ArrayList<>(), new ArrayList<>());
        keyspace.noteChunked();
      } else {
        head =
            new ZSetChunks.Index(old.id(), old.nextNumber(), new ArrayList<>(), new ArrayList<>());
      }
      long id = head.id();
      headId = id;
      body.write(
          head,
          (number, encoder, fresh) -> {
            byte[] key = chunks.writeChunk(stored, ValueType.ZSET, id, number, encoder, sink);
            if (fresh) {
              written.add(key);
            }
          });
      payload = head.encode();
    }
    StoredValue after = meta.withPayload(payload).withVersion(keyspace.nextVersion());
    byte[] bytes = ValueLayout.encode(after);
    if (!chunks.replaceHead(stored, live.raw(), bytes, written, sink)) {
      return null; // replaced or evicted since it was read: run again
    }
    if (old != null && (packed || afresh)) {
      chunks.releaseChunks(stored, live.raw(), sink); // every chunk and page of the old head
    } else if (old != null) {
      for (int number : body.dropped()) {
        chunks.removeChunk(ChunkKey.of(stored, old.id(), number), sink);
      }
    } else if (live.raw() != null) {
      chunks.releaseIfHead(stored, live.raw(), sink);
    }
    if (!packed) {
      long id = headId;
      body.madePages((number, refs) -> pages.put(stored, id, number, refs));
    }
    if (after.volatileKey()) {
      keyspace.countExpiring();
    }
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(before, after, live.expired()));
  }
}
