package dev.larder.server.internal.keyspace;

import dev.larder.Cache;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The keyspace's lists in both stored forms: packed (one value) and chunked (a head value that is
 * the list's index, and chunk entries of a few KiB each; {@link ListChunks}). The list commands run
 * here ({@link #edit}, {@link #read}); the rest of the keyspace sees a chunked list only as a head
 * whose chunks it must remove with it ({@link #release}) or read whole ({@link #materialized}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Atomicity.</b> Every read and change of a chunked list, and every change of a list through
 * {@link #edit}, holds the key's stripe monitor (the one that orders a logged keyspace's reports),
 * so two list commands on one key never interleave. Other writers of the key (SET, DEL, EXPIRE...)
 * do not all take the stripe: a change here therefore writes its chunks first, then replaces the
 * head only if it is still the bytes it read (a compare-and-set), and retries the command if not. A
 * chunk is overwritten in place (its number kept) or written under a fresh number; a retry removes
 * the fresh ones, and the chunks the replaced head named are removed by whoever replaced it (they
 * read the old head back: {@link Keyspace}'s overwrites once {@code anyChunked} is set, its
 * removals, expiries and evictions), which waits for the stripe. So at every moment a head's chunks
 * are the list it describes, or one is missing.
 *
 * <p><b>Missing chunks and eviction.</b> The store's policy may evict a chunk or a head on its own.
 * Its listener runs on the writing thread, possibly inside another key's stripe, so it only queues
 * the work ({@link #chunkEvicted}, {@link #headEvicted}); the thread does it when it leaves the
 * keyspace ({@link #settle}): an evicted chunk's list is removed (counted and reported as the key's
 * eviction), an evicted head's chunks are removed. A list found with a chunk missing before that
 * (by any thread) is the same case: it is removed and treated as absent. So a list is evicted
 * whole, and no list is ever read with a hole.
 *
 * <p><b>Logging.</b> Under a log, a change's chunk writes, its head and its chunk removals are
 * reported in one group (one record), so recovery never sees half a change; an eviction's follow-up
 * is a group of its own after the eviction's, and recovery completes one that a crash cut short
 * ({@link #settleRestored}).
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
  private final boolean chunking;

  /** Work evictions left for the thread that caused them: stored keys of heads, with their ids. */
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

  /**
   * @param keyspace the keyspace
   * @param chunking whether large lists are chunked (false: every list stays packed)
   */
  ListStore(Keyspace keyspace, boolean chunking) {
    this.keyspace = keyspace;
    this.chunking = chunking;
  }

  /** An eviction's follow-up: remove a head with that id (and its chunks), or chunks of a head. */
  @SuppressWarnings("ArrayRecordComponent") // never compared
  private record Pending(byte[] headKey, long id, byte[] evictedHead) {}

  void chunkEvicted(byte[] chunkKey) {
    pending.add(new Pending(ListChunks.headKeyOf(chunkKey), ListChunks.idOf(chunkKey), null));
  }

  void headEvicted(byte[] headKey, byte[] head) {
    pending.add(new Pending(headKey, 0, head));
  }

  /** Does the work evictions queued. Must not be called holding a stripe. */
  void settle() {
    if (pending.isEmpty()) {
      return;
    }
    for (Pending p; (p = pending.poll()) != null; ) {
      if (p.evictedHead() != null) {
        release(p.headKey(), p.evictedHead());
      } else {
        evictWhole(p.headKey(), p.id());
      }
    }
  }

  /** Removes the list at {@code headKey} if it is still the chunked list {@code id}. */
  private void evictWhole(byte[] headKey, long id) {
    ReentrantLock stripe = keyspace.stripe(headKey);
    stripe.lock();
    try {
      byte[] raw = keyspace.cache().getIfPresent(headKey);
      if (raw == null || !ListChunks.isHeadValue(raw) || indexOf(raw).id() != id) {
        return;
      }
      ChangeSink sink = keyspace.sinkIfLogged();
      begin(sink);
      try {
        if (keyspace.cache().remove(headKey, raw)) {
          if (sink != null) {
            sink.evict(headKey, ValueLayout.versionOf(raw));
          }
          keyspace.countEviction();
          keyspace.observer().evicted(headKey);
          releaseChunks(headKey, raw, sink);
        }
      } finally {
        end(sink);
      }
    } finally {
      stripe.unlock();
    }
  }

  /**
   * Removes the chunks a removed head named (reported to the log, in a group of their own unless
   * the calling thread is in one already).
   *
   * @param headKey the head's stored key
   * @param head the head's stored bytes, no longer in the store
   */
  void release(byte[] headKey, byte[] head) {
    ReentrantLock stripe = keyspace.stripe(headKey);
    stripe.lock();
    try {
      ChangeSink sink = keyspace.sinkIfLogged();
      begin(sink);
      try {
        releaseChunks(headKey, head, sink);
      } finally {
        end(sink);
      }
    } finally {
      stripe.unlock();
    }
  }

  /**
   * Removes every chunk of the key that its present value does not name (all of them if it holds no
   * chunked list), under its stripe, where no list command of the key is under way: any such chunk
   * is garbage. For a blind overwrite that may have replaced the head of the keyspace's first
   * chunked list ({@link Keyspace}'s {@code overwrite}); it walks the whole store, so it is for
   * that once-in-a-keyspace's-life case only.
   *
   * @param headKey the key's stored key
   */
  void dropUnnamedChunks(byte[] headKey) {
    ReentrantLock stripe = keyspace.stripe(headKey);
    stripe.lock();
    try {
      byte[] raw = keyspace.cache().getIfPresent(headKey);
      ListChunks.Index index = raw != null && ListChunks.isHeadValue(raw) ? indexOf(raw) : null;
      Set<Integer> named = index == null ? Set.of() : named(headKey, index);
      List<byte[]> unnamed = new ArrayList<>();
      for (byte[] k : keyspace.cache().asMap().keySet()) {
        if (ListChunks.isChunkOf(k, headKey)
            && (index == null
                || index.id() != ListChunks.idOf(k)
                || !named.contains(ListChunks.numberOf(k)))) {
          unnamed.add(k);
        }
      }
      ChangeSink sink = keyspace.sinkIfLogged();
      begin(sink);
      try {
        for (byte[] k : unnamed) {
          removeChunk(k, sink);
        }
      } finally {
        end(sink);
      }
    } finally {
      stripe.unlock();
    }
  }

  private void releaseChunks(byte[] headKey, byte[] head, ChangeSink sink) {
    ListChunks.Index index = indexOf(head);
    if (!ListChunks.forEachKey(headKey, index, this::storedPayload, k -> removeChunk(k, sink))) {
      removeEveryChunkOf(headKey, index.id(), sink);
    }
  }

  /**
   * Removes every chunk of the list {@code id} at {@code headKey}, walking the whole store: for a
   * list one of whose index pages is gone (evicted), whose chunks nothing else names.
   */
  private void removeEveryChunkOf(byte[] headKey, long id, ChangeSink sink) {
    List<byte[]> found = new ArrayList<>();
    for (byte[] k : keyspace.cache().asMap().keySet()) {
      if (ListChunks.isChunkOf(k, headKey) && ListChunks.idOf(k) == id) {
        found.add(k);
      }
    }
    for (byte[] k : found) {
      removeChunk(k, sink);
    }
  }

  /** The numbers of the chunks and index pages a head names (those of pages present). */
  private Set<Integer> named(byte[] headKey, ListChunks.Index index) {
    Set<Integer> named = new HashSet<>();
    ListChunks.forEachKey(
        headKey, index, this::storedPayload, k -> named.add(ListChunks.numberOf(k)));
    return named;
  }

  /** A chunk's or index page's payload, or null if the store does not hold it. */
  private byte[] storedPayload(byte[] chunkKey) {
    return keyspace.cache().read(chunkKey, ListStore::chunkPayload);
  }

  private void removeChunk(byte[] chunkKey, ChangeSink sink) {
    if (keyspace.cache().remove(chunkKey) != null && sink != null) {
      sink.delete(chunkKey);
    }
  }

  private static void begin(ChangeSink sink) {
    if (sink != null) {
      sink.begin();
    }
  }

  private static void end(ChangeSink sink) {
    if (sink != null) {
      sink.end();
    }
  }

  private static ListChunks.Index indexOf(byte[] headBytes) {
    ValueLayout.Header h = ValueLayout.header(headBytes);
    return ListChunks.Index.decode(
        Arrays.copyOfRange(headBytes, h.payloadOffset(), headBytes.length));
  }

  /** The live value of a key and its stored bytes, or nulls. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  private record Live(byte[] raw, StoredValue value, boolean expired) {}

  private Live live(byte[] stored) {
    byte[] raw = keyspace.cache().getIfPresent(stored);
    if (raw == null) {
      return new Live(null, null, false);
    }
    StoredValue v = ValueLayout.decode(raw);
    if (v.expiredAt(keyspace.now())) {
      return new Live(raw, null, true);
    }
    return new Live(raw, v, false);
  }

  private ListBody bodyOf(byte[] stored, StoredValue v) {
    if (v == null) {
      return ListBody.empty();
    }
    if (!ListChunks.isHead(v.payload())) {
      return ListBody.packed(v.payload());
    }
    ListChunks.Index index = ListChunks.Index.decode(v.payload());
    Cache<byte[], byte[]> cache = keyspace.cache();
    long id = index.id();
    return ListBody.chunked(
        index,
        number -> cache.read(ListChunks.chunkKey(stored, id, number), ListStore::chunkPayload));
  }

  /**
   * Copies a chunk's payload out of its stored bytes in place: a chunk's value is a tag byte, a
   * version and the payload (no expiry, no flags, no item state).
   */
  private static byte[] chunkPayload(ByteBuffer value) {
    int pos = value.position() + 1;
    while ((value.get(pos) & 0x80) != 0) {
      pos++;
    }
    pos++;
    byte[] out = new byte[value.limit() - pos];
    value.get(pos, out);
    return out;
  }

  /**
   * Runs a read-only list command (see {@link Keyspace#readList}): a packed list without a lock, a
   * chunked one under its stripe.
   */
  <R> R read(byte[] stored, Edit<R> read) {
    Live live = live(stored);
    if (live.value() != null
        && live.value().type() == ValueType.LIST
        && ListChunks.isHead(live.value().payload())) {
      return readChunked(stored, read);
    }
    if (live.expired()) {
      removeExpired(stored, live.raw());
    }
    StoredValue v = live.value();
    keyspace.countRead(v != null);
    return read.apply(v, v == null || v.type() != ValueType.LIST ? null : bodyOf(stored, v));
  }

  private <R> R readChunked(byte[] stored, Edit<R> read) {
    ReentrantLock stripe = keyspace.stripe(stored);
    while (true) {
      Live live;
      stripe.lock();
      try {
        live = live(stored);
        StoredValue v = live.value();
        if (!live.expired()) {
          keyspace.countRead(v != null);
          return read.apply(v, v == null || v.type() != ValueType.LIST ? null : bodyOf(stored, v));
        }
      } catch (ListBody.MissingChunk e) {
        dropBroken(stored);
        continue;
      } finally {
        stripe.unlock();
      }
      removeExpired(stored, live.raw());
    }
  }

  private void removeExpired(byte[] stored, byte[] raw) {
    if (keyspace.cache().remove(stored, raw)) {
      keyspace.observer().expired(stored);
      if (ListChunks.isHeadValue(raw)) {
        release(stored, raw);
      }
    }
  }

  /**
   * Removes a list a chunk of which is missing (under its stripe): its eviction, which a thread has
   * not finished yet.
   */
  private void dropBroken(byte[] stored) {
    byte[] raw = keyspace.cache().getIfPresent(stored);
    if (raw != null && ListChunks.isHeadValue(raw)) {
      evictWhole(stored, indexOf(raw).id());
    }
  }

  /**
   * Returns a key's live value with a chunked list read whole into a packed payload; null if absent
   * (or a chunk is missing: the list is then removed, being evicted).
   */
  StoredValue materialized(byte[] stored) {
    ReentrantLock stripe = keyspace.stripe(stored);
    stripe.lock();
    try {
      while (true) {
        Live live = live(stored);
        StoredValue v = live.value();
        if (v == null || v.type() != ValueType.LIST || !ListChunks.isHead(v.payload())) {
          return v;
        }
        try {
          return v.withPayload(bodyOf(stored, v).packedPayload());
        } catch (ListBody.MissingChunk e) {
          dropBroken(stored);
        }
      }
    } finally {
      stripe.unlock();
    }
  }

  /** Runs a list command that may change the list: see {@link Keyspace#editList}. */
  <R> R edit(byte[] stored, Edit<R> edit) {
    ReentrantLock stripe = keyspace.stripe(stored);
    while (true) {
      Outcome<R> outcome;
      stripe.lock();
      try {
        ChangeSink sink = keyspace.sinkIfLogged();
        begin(sink);
        try {
          outcome = attempt(stored, edit, sink);
        } catch (ListBody.MissingChunk e) {
          dropBroken(stored);
          continue;
        } finally {
          end(sink);
        }
      } finally {
        stripe.unlock();
      }
      if (outcome == null) {
        continue; // the head changed under the command: run it again
      }
      if (outcome.change() != null) {
        keyspace.observeChange(stored, outcome.change());
      }
      return outcome.result();
    }
  }

  /**
   * What a run of a command came to.
   *
   * @param result the command's result
   * @param change the key's change to report, or null for none
   */
  private record Outcome<R>(R result, Keyspace.Change change) {}

  /** One run of a command under the stripe; null if the head changed before it was replaced. */
  private <R> Outcome<R> attempt(byte[] stored, Edit<R> edit, ChangeSink sink) {
    Live live = live(stored);
    StoredValue before = live.value();
    boolean isList = before != null && before.type() == ValueType.LIST;
    ListBody list = isList ? bodyOf(stored, before) : ListBody.empty();
    R result = edit.apply(before, list);
    if (!list.changed()) {
      return new Outcome<>(result, null);
    }
    if (before != null && !isList) {
      throw new IllegalStateException("a list command changed a key of another type");
    }
    if (list.size() == 0) {
      if (before == null) {
        return new Outcome<>(result, null);
      }
      if (!swapHead(stored, live.raw(), null)) {
        return null;
      }
      if (sink != null) {
        sink.delete(stored);
      }
      releaseIfHead(stored, live.raw(), sink);
      return new Outcome<>(result, new Keyspace.Change(before, null, live.expired()));
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
    if (!swapHead(stored, live.raw(), bytes)) {
      // Replaced or evicted since it was read: take back the chunks added, run again.
      for (byte[] k : written) {
        removeChunk(k, sink);
      }
      return null;
    }
    if (sink != null) {
      sink.put(stored, bytes);
    }
    if (old != null && now == null) {
      releaseChunks(stored, live.raw(), sink); // packed again: every chunk and page goes
    } else if (old != null) {
      long id = old.id();
      if (!list.removed(
          number -> storedPayload(ListChunks.chunkKey(stored, id, number)),
          number -> removeChunk(ListChunks.chunkKey(stored, id, number), sink))) {
        dropUnnamedChunks(stored); // a page dropped unread was gone: find its chunks by a walk
      }
    } else if (live.raw() != null) {
      releaseIfHead(stored, live.raw(), sink);
    }
    if (after.volatileKey()) {
      keyspace.countExpiring();
    }
    return new Outcome<>(result, new Keyspace.Change(before, after, live.expired()));
  }

  private static final byte[] PACKED_ONE = {ListPayload.PACKED};

  /**
   * Replaces a key's stored bytes if they are still {@code expected} (null: absent); {@code next}
   * null removes the key. A compute, which every store (a clustered one too) runs atomically.
   *
   * @return whether it was replaced
   */
  private boolean swapHead(byte[] stored, byte[] expected, byte[] next) {
    boolean[] swapped = new boolean[1];
    keyspace
        .cache()
        .compute(
            stored,
            (k, current) -> {
              swapped[0] = Arrays.equals(current, expected);
              return swapped[0] ? next : current;
            });
    return swapped[0];
  }

  private void releaseIfHead(byte[] stored, byte[] raw, ChangeSink sink) {
    if (ListChunks.isHeadValue(raw)) {
      releaseChunks(stored, raw, sink);
    }
  }

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
          byte[] key = ListChunks.chunkKey(stored, id, number);
          byte[] value =
              ValueLayout.encode(
                  new StoredValue(ValueType.LIST, keyspace.nextVersion(), 0, 0, payload));
          keyspace.cache().put(key, value);
          if (sink != null) {
            sink.put(key, value);
          }
          if (fresh) {
            written.add(key);
          }
        });
  }

  /**
   * The keyspace's generic update of a key holding a chunked list (EXPIRE, RESTORE over it, SET
   * over it...), under its stripe: {@code fn} sees the list read whole. A result that keeps the
   * very payload it was given changes only the head (the list's expiry, version...); another result
   * replaces the list, whose chunks go.
   *
   * @param bytes if not null, gets the head's or new value's stored bytes (for the caller's log)
   */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  Keyspace.Change updateWhole(
      byte[] stored, UnaryOperator<StoredValue> fn, boolean newVersion, byte[][] bytes) {
    ReentrantLock stripe = keyspace.stripe(stored);
    stripe.lock();
    try {
      ChangeSink sink = keyspace.sinkIfLogged();
      while (true) {
        Live live = live(stored);
        byte[] raw = live.raw();
        if (raw == null || !ListChunks.isHeadValue(raw) || live.expired()) {
          if (live.expired()) {
            removeExpired(stored, raw);
          }
          return plainUpdate(stored, fn, newVersion, bytes);
        }
        StoredValue head = live.value();
        byte[] whole;
        try {
          whole = bodyOf(stored, head).packedPayload();
        } catch (ListBody.MissingChunk e) {
          dropBroken(stored);
          continue;
        }
        StoredValue before = head.withPayload(whole);
        StoredValue after = fn.apply(before);
        if (after == before) {
          return new Keyspace.Change(before, before);
        }
        if (after == null) {
          if (!keyspace.cache().remove(stored, raw)) {
            continue;
          }
          releaseChunks(stored, raw, sink);
          return new Keyspace.Change(before, null);
        }
        if (newVersion) {
          after = after.withVersion(keyspace.nextVersion());
        }
        boolean keepsList = after.type() == ValueType.LIST && after.payload() == whole;
        byte[] next = ValueLayout.encode(keepsList ? after.withPayload(head.payload()) : after);
        if (!keyspace.cache().replace(stored, raw, next)) {
          continue;
        }
        if (!keepsList) {
          releaseChunks(stored, raw, sink);
        }
        if (bytes != null) {
          bytes[0] = next;
        }
        if (after.volatileKey()) {
          keyspace.countExpiring();
        }
        return new Keyspace.Change(before, after);
      }
    } finally {
      stripe.unlock();
    }
  }

  /** An update of a key that no longer holds a chunked list: the keyspace's own compute. */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  private Keyspace.Change plainUpdate(
      byte[] stored, UnaryOperator<StoredValue> fn, boolean newVersion, byte[][] bytes) {
    Keyspace.Change[] result = new Keyspace.Change[1];
    long now = keyspace.now();
    keyspace
        .cache()
        .compute(
            stored,
            (k, old) -> {
              StoredValue before = old == null ? null : ValueLayout.decode(old);
              boolean expiredBefore = before != null && before.expiredAt(now);
              if (expiredBefore) {
                before = null;
              }
              StoredValue after = fn.apply(before);
              if (after == before) {
                result[0] = new Keyspace.Change(before, before, expiredBefore);
                return before == null ? null : old;
              }
              if (after != null && newVersion) {
                after = after.withVersion(keyspace.nextVersion());
              }
              result[0] = new Keyspace.Change(before, after, expiredBefore);
              byte[] encoded = after == null ? null : ValueLayout.encode(after);
              if (bytes != null) {
                bytes[0] = encoded;
              }
              return encoded;
            });
    Keyspace.Change change = result[0];
    if (change.after() != null
        && change.after() != change.before()
        && change.after().volatileKey()) {
      keyspace.countExpiring();
    }
    return change;
  }

  /**
   * After recovery: removes chunks no head names and lists a chunk of which is missing (see {@link
   * Keyspace#restoreSettle}).
   *
   * @return the entries removed
   */
  long settleRestored() {
    Cache<byte[], byte[]> cache = keyspace.cache();
    Map<String, Set<Integer>> chunks = new HashMap<>();
    List<byte[]> chunkKeys = new ArrayList<>();
    List<byte[]> heads = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : cache.asMap().entrySet()) {
      byte[] k = e.getKey();
      if (ListChunks.isChunkKey(k)) {
        chunkKeys.add(k);
        chunks
            .computeIfAbsent(
                owner(ListChunks.headKeyOf(k), ListChunks.idOf(k)), o -> new HashSet<>())
            .add(ListChunks.numberOf(k));
      } else if (ListChunks.isHeadValue(e.getValue())) {
        heads.add(k);
      }
    }
    long removed = 0;
    Map<String, Set<Integer>> whole = new HashMap<>();
    for (byte[] k : heads) {
      byte[] raw = cache.getIfPresent(k);
      if (raw == null) {
        continue;
      }
      ListChunks.Index index = indexOf(raw);
      String owner = owner(k, index.id());
      Set<Integer> held = chunks.getOrDefault(owner, Set.of());
      Set<Integer> named = new HashSet<>();
      boolean complete =
          ListChunks.forEachKey(
              k, index, this::storedPayload, c -> named.add(ListChunks.numberOf(c)));
      for (int number : named) {
        complete &= held.contains(number);
      }
      if (complete) {
        whole.put(owner, named);
      } else {
        cache.invalidate(k);
        removed++;
      }
    }
    for (byte[] k : chunkKeys) {
      Set<Integer> named = whole.get(owner(ListChunks.headKeyOf(k), ListChunks.idOf(k)));
      if (named == null || !named.contains(ListChunks.numberOf(k))) {
        cache.invalidate(k);
        removed++;
      }
    }
    return removed;
  }

  private static String owner(byte[] headKey, long id) {
    return Arrays.toString(headKey) + "#" + id;
  }
}
