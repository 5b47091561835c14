package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;

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
    ChunkStore.Live live = chunks.live(stored);
    if (live.value() != null && ChunkStore.isHead(live.value())) {
      return chunks.readLocked(stored, v -> read.apply(v, v == null ? null : bodyOf(stored, v)));
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
    ChunkStore.Live live = chunks.live(stored);
    StoredValue before = live.value();
    ZSetBody body = before == null ? ZSetBody.empty() : bodyOf(stored, before);
    R result = edit.apply(before, body);
    if (body == null || !body.changed()) {
      return new ChunkStore.Outcome<>(result, null);
    }
    if (body.size() == 0) {
      return chunks.deleteEmptied(stored, live, result, sink);
    }
    StoredValue meta = before != null ? before : new StoredValue(ValueType.ZSET, 0, 0, 0, EMPTY);
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
