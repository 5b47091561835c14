package dev.larder.server.internal.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

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
    return chunked(stored, ListChunks.Index.decode(v.payload()));
  }

  /** The body of the chunked list whose head's index is {@code index}, its chunks not read yet. */
  private ListBody chunked(byte[] stored, ListChunks.Index index) {
    return ListBody.chunked(index, chunks.loader(stored, index.id()));
  }

  /**
   * Runs a read-only list command (see {@link Keyspace#readList}): a packed list without a lock, a
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
    return chunks.readLive(
        stored,
        live -> {
          StoredValue v = live.value();
          ListChunks.Index index =
              v != null && v.type() == ValueType.LIST && ListChunks.isHead(v.payload())
                  ? ListChunks.Index.decode(v.payload())
                  : null;
          ChunkStore.Outcome<R> served = servedOpening(stored, live, index, read, null);
          if (served != null) {
            return served.result();
          }
          if (v == null || v.type() != ValueType.LIST) {
            return read.apply(v, null);
          }
          return read.apply(v, index != null ? chunked(stored, index) : bodyOf(stored, v));
        });
  }

  /**
   * Opens the chunked list {@code live} holds (its head's index {@code index}, null if it is not
   * one) if its key is hot (reads count as changes do: a queue's LLEN or LRANGE polled many times a
   * second is as hot as one pushed to) and the tier has room, and runs the command on it; null if
   * it does not open (under the key's stripe).
   */
  private <R> ChunkStore.Outcome<R> servedOpening(
      byte[] stored, ChunkStore.Live live, ListChunks.Index index, Edit<R> edit, ChangeSink sink) {
    OpenCollections tier = index == null ? null : keyspace.tierToOpen(stored, sink);
    return tier != null && open(stored, live, index, tier)
        ? served(tier, stored, edit, sink)
        : null;
  }

  /** Runs a list command that may change the list: see {@link Keyspace#editList}. */
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
    boolean isList = before != null && before.type() == ValueType.LIST;
    // Decoded once: a hot list the tier has no room for is asked to open at every command, and
    // its store path then needs the same index.
    ListChunks.Index index =
        isList && ListChunks.isHead(before.payload())
            ? ListChunks.Index.decode(before.payload())
            : null;
    ChunkStore.Outcome<R> opened = servedOpening(stored, live, index, edit, sink);
    if (opened != null) {
      return opened;
    }
    ListBody list =
        index != null ? chunked(stored, index) : isList ? bodyOf(stored, before) : ListBody.empty();
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
    return writeBack(stored, live, meta, list, result, sink);
  }

  /**
   * Runs a command on the key's open list, if it has one whose head the store still holds (under
   * the key's stripe); null if not (an open list whose head was replaced or expired is dropped
   * first), for the command to run on the store.
   */
  private <R> ChunkStore.Outcome<R> served(
      OpenCollections tier, byte[] stored, Edit<R> edit, ChangeSink sink) {
    OpenCollections.Open o = tier.get(stored);
    if (o == null || o.list == null) {
      return null;
    }
    if (!tier.servable(o)) {
      return null;
    }
    long before = o.list.changes();
    R result;
    try {
      result = edit.apply(o.head, o.list);
    } catch (MissingChunk e) {
      // A list held partly read a chunk the store no longer holds: the key is being evicted (or
      // was replaced under way), and what the tier held goes with it. The store's path finds the
      // key as it is now.
      tier.drop(o);
      return null;
    } catch (RuntimeException | Error e) {
      if (o.list.changes() != before) {
        // No list command throws after a change of a loaded list; if one did, what the earlier
        // commands changed (acknowledged) is kept: the list is written back as it stands.
        close(o);
      }
      throw e;
    }
    o.list.releaseRead();
    if (o.list.changes() == before) {
      o.used = true;
      return new ChunkStore.Outcome<>(result, null);
    }
    if (o.list.size() == 0) {
      tier.drop(o);
      return chunks.deleteEmptied(
          stored, new ChunkStore.Live(o.headRaw, o.head, false), result, sink);
    }
    o.list.splitLarge();
    if (tier.used(o) && tier.over()) {
      close(o); // the tier is over its budget: this key leaves it
    }
    // The key's type and expiry are the head's; its version is given when it closes.
    return new ChunkStore.Outcome<>(result, new Keyspace.Change(o.head, o.head, false));
  }

  /**
   * Opens the chunked list {@code live} holds (under its stripe), if the tier has room for it, and
   * returns whether it did: every page and chunk read if it fits the tier whole, else held partly
   * ({@link ListBody#holdPartly}: its ends and what its commands change, a chunk read when a
   * command reaches it), so that a list too large to hold whole (a long queue) is not read, changed
   * and written again at every push or pop.
   */
  private boolean open(
      byte[] stored, ChunkStore.Live live, ListChunks.Index index, OpenCollections tier) {
    StoredValue head = live.value();
    long size = 0;
    for (int i = 0; i < index.entries(); i++) {
      size +=
          index.bytes(i)
              + (long) OpenCollections.SEGMENT_OVERHEAD * Math.max(1, index.pageChunks(i));
    }
    ListBody list = chunked(stored, index);
    if (tier.room(size)) {
      // A missing chunk throws MissingChunk: the store path's case, as if not opened.
      list.loadAll();
    } else {
      long partly =
          (long) OpenCollections.SEGMENT_OVERHEAD * index.entries()
              + 2L * ListBody.ENDS_HELD * ListBody.CHUNK_BYTES;
      if (!tier.room(partly)) {
        return false;
      }
      list.holdPartly();
    }
    tier.add(new OpenCollections.Open(stored, live.raw(), head, list));
    return true;
  }

  /**
   * Closes an open list (under its key's stripe): writes what its commands changed as one change of
   * the key, if the store still holds the head it was opened from, and drops it from the tier.
   */
  void close(OpenCollections.Open o) {
    keyspace.openCollections().drop(o);
    if (!o.list.changed()) {
      return;
    }
    if (!keyspace.openCollections().holdsHead(o)) {
      return; // replaced since it opened: the replacement came after every change it holds
    }
    ChunkStore.Live live = new ChunkStore.Live(o.headRaw, o.head, false);
    // A lost compare-and-set (a blind write since the check) removed the fresh chunks; whoever
    // replaced the head releases the chunks it named, written in place here, once this stripe is
    // left.
    try {
      writeBack(o.stored, live, o.head, o.list, Boolean.TRUE, keyspace.sinkIfLogged());
    } catch (MissingChunk e) {
      // A list held partly reads the index pages its write folds into before it writes anything:
      // one is gone, so the key is being evicted, and what the tier held goes with it.
      chunks.dropBroken(o.stored);
    }
  }

  /**
   * Writes a changed list back over the key's live value {@code live}: packed or in chunks as its
   * size says, under {@code meta}'s header; null if the key changed since {@code live} was read.
   */
  private <R> ChunkStore.Outcome<R> writeBack(
      byte[] stored,
      ChunkStore.Live live,
      StoredValue meta,
      ListBody list,
      R result,
      ChangeSink sink) {
    StoredValue before = live.value();
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
