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
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The type-independent half of the keyspace's chunked collections (large lists, {@link ListChunks};
 * large sets and hashes, {@link RangeChunks}; large sorted sets, {@link ZSetChunks}): a head value
 * holding the collection's index, and chunk entries of a few KiB each under keys no client can
 * name. Here is what every chunked type needs the same way: the follow-up of evictions, the removal
 * of a head's chunks with it, the read of a collection whole (for the commands that have no
 * chunk-wise path), the generic update of a chunked key, and the settling of chunks after recovery.
 * The commands of each type, which read and write single chunks, live in the type's own store
 * ({@link ListStore}, {@link RangeStore}, {@link ZSetStore}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Atomicity.</b> Every read and change of a chunked collection holds the key's stripe monitor
 * (the one that orders a logged keyspace's reports), so two commands on one key never interleave.
 * Other writers of the key (SET, DEL, EXPIRE...) do not all take the stripe: a change therefore
 * writes its chunks first, then replaces the head only if it is still the bytes it read (a
 * compare-and-set, {@link #swapHead}), and runs the command again if not. A chunk is overwritten in
 * place (its number kept) or written under a fresh number; a retry removes the fresh ones, and the
 * chunks the replaced head named are removed by whoever replaced it (they read the old head back:
 * {@link Keyspace}'s overwrites once {@code anyChunked} is set, its removals, expiries and
 * evictions), which waits for the stripe. So at every moment a head's chunks are the collection it
 * describes, or one is missing.
 *
 * <p><b>Missing chunks and eviction.</b> The store's policy may evict a chunk or a head on its own.
 * Its listener runs on the writing thread, possibly inside another key's stripe, so it only queues
 * the work ({@link #chunkEvicted}, {@link #headEvicted}); the thread does it when it leaves the
 * keyspace ({@link #settle}): an evicted chunk's collection is removed (counted and reported as the
 * key's eviction), an evicted head's chunks are removed. A collection found with a chunk missing
 * before that (by any thread; {@link MissingChunk}) is the same case: it is removed and treated as
 * absent. So a collection is evicted whole, and none is ever read with a hole.
 *
 * <p><b>Index pages.</b> A head need not list its chunks: a large list's folds its middle chunks
 * into index pages, and a large set's or hash's lists its chunks in index pages once it has more
 * than a few, chunk entries of their own ({@link ListChunks}, {@link RangeChunks}). So this class
 * never counts a head's chunks; it walks them ({@link ChunkIndex#forEachNumber}) with a reader of
 * the stored pages, and treats a missing page as what it is, a collection being evicted: its
 * release falls back to a walk of the store for the collection's chunk keys ({@code
 * removeEveryChunkOf}), and recovery counts it incomplete.
 *
 * <p><b>Logging.</b> Under a log, a change's chunk writes, its head and its chunk removals are
 * reported in one group (one record), so recovery never sees half a change; an eviction's follow-up
 * is a group of its own after the eviction's, and recovery completes one that a crash cut short
 * ({@link #settleRestored}).
 *
 * <p>Thread-safe.
 */
final class ChunkStore {
  private final Keyspace keyspace;

  /** Work evictions left for the thread that caused them: stored keys of heads, with their ids. */
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

  private final ChunkTraffic traffic = new ChunkTraffic();

  ChunkStore(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  /** Returns the counts of chunk writes, removals and reads (INFO's figures). */
  ChunkTraffic traffic() {
    return traffic;
  }

  /**
   * Returns whether stored value bytes are a chunked collection's head, reading only its header and
   * the payload's first byte.
   *
   * @param stored stored value bytes
   */
  static boolean isHeadValue(byte[] stored) {
    return ListChunks.isHeadValue(stored)
        || RangeChunks.isHeadValue(stored)
        || ZSetChunks.isHeadValue(stored);
  }

  /** Returns whether a decoded value is a chunked collection's head. */
  static boolean isHead(StoredValue v) {
    return switch (v.type()) {
      case LIST -> ListChunks.isHead(v.payload());
      case ZSET -> ZSetChunks.isHead(v.payload());
      default -> RangeChunks.isHead(v.type(), v.payload());
    };
  }

  /** Returns the index a head's stored bytes hold. */
  static ChunkIndex indexOf(byte[] headBytes) {
    ValueLayout.Header h = ValueLayout.header(headBytes);
    byte[] payload = Arrays.copyOfRange(headBytes, h.payloadOffset(), headBytes.length);
    return switch (h.type()) {
      case LIST -> ListChunks.Index.decode(payload);
      case ZSET -> ZSetChunks.Index.decode(payload);
      default -> RangeChunks.Index.decode(h.type(), payload);
    };
  }

  /**
   * Returns a head's collection read whole, as the packed payload of its type.
   *
   * @throws MissingChunk if a chunk is missing
   */
  private byte[] wholePayload(byte[] stored, StoredValue head) {
    if (head.type() == ValueType.ZSET) {
      ZSetChunks.Index index = ZSetChunks.Index.decode(head.payload());
      return ZSetBody.chunked(index, loader(stored, index.id())).packedPayload();
    }
    if (head.type() != ValueType.LIST) {
      RangeChunks.Index index = RangeChunks.Index.decode(head.type(), head.payload());
      return RangeBody.chunked(head.type(), index, loader(stored, index.id())).packedPayload();
    }
    ListChunks.Index index = ListChunks.Index.decode(head.payload());
    return ListBody.chunked(index, loader(stored, index.id())).packedPayload();
  }

  /** Reads the chunks of the collection {@code id} at {@code stored}: null for a missing one. */
  ChunkLoader loader(byte[] stored, long id) {
    Cache<byte[], byte[]> cache = keyspace.cache();
    return number -> {
      byte[] payload = cache.read(ChunkKey.of(stored, id, number), ChunkStore::chunkPayload);
      if (payload != null) {
        traffic.read(payload.length);
      }
      return payload;
    };
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

  /** An eviction's follow-up: remove a head with that id (and its chunks), or chunks of a head. */
  @SuppressWarnings("ArrayRecordComponent") // never compared
  private record Pending(byte[] headKey, long id, byte[] evictedHead) {}

  void chunkEvicted(byte[] chunkKey) {
    pending.add(new Pending(ChunkKey.headKeyOf(chunkKey), ChunkKey.idOf(chunkKey), null));
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

  /** Removes the collection at {@code headKey} if it is still the chunked collection {@code id}. */
  private void evictWhole(byte[] headKey, long id) {
    ReentrantLock stripe = keyspace.stripe(headKey);
    stripe.lock();
    try {
      byte[] raw = keyspace.cache().getIfPresent(headKey);
      if (raw == null || !isHeadValue(raw) || indexOf(raw).id() != id) {
        return;
      }
      ChangeSink sink = keyspace.sinkIfLogged();
      begin(sink);
      try {
        if (keyspace.cache().remove(headKey, raw)) {
          dropOpen(headKey);
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

  /** Drops the open collection of a key (under its stripe) whose head was removed. */
  private void dropOpen(byte[] headKey) {
    OpenCollections tier = keyspace.openIfAny();
    OpenCollections.Open o = tier == null ? null : tier.get(headKey);
    if (o != null) {
      tier.drop(o);
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
      OpenCollections tier = keyspace.openIfAny();
      OpenCollections.Open o = tier == null ? null : tier.get(headKey);
      if (o != null && Arrays.equals(o.headRaw, head)) {
        tier.drop(o); // its head is gone: what it holds goes with it
      }
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
   * chunked collection), under its stripe, where no command of the key is under way: any such chunk
   * is garbage. For a blind overwrite that may have replaced the head of the keyspace's first
   * chunked collection ({@link Keyspace}'s {@code overwrite}); it walks the whole store, so it is
   * for that once-in-a-keyspace's-life case only.
   *
   * @param headKey the key's stored key
   */
  void dropUnnamedChunks(byte[] headKey) {
    ReentrantLock stripe = keyspace.stripe(headKey);
    stripe.lock();
    try {
      byte[] raw = keyspace.cache().getIfPresent(headKey);
      ChunkIndex index = raw != null && isHeadValue(raw) ? indexOf(raw) : null;
      Set<Integer> named = index == null ? Set.of() : named(headKey, index);
      List<byte[]> unnamed = new ArrayList<>();
      for (byte[] k : keyspace.cache().asMap().keySet()) {
        if (ChunkKey.isChunkOf(k, headKey)
            && (index == null
                || index.id() != ChunkKey.idOf(k)
                || !named.contains(ChunkKey.numberOf(k)))) {
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

  /**
   * Removes every chunk entry a head names (not the head): with a list's, its index pages too. If a
   * page is missing (evicted), the chunks it listed are found by a walk of the whole store.
   */
  void releaseChunks(byte[] headKey, byte[] head, ChangeSink sink) {
    ChunkIndex index = indexOf(head);
    long id = index.id();
    if (!index.forEachNumber(
        loader(headKey, id)::load, number -> removeChunk(ChunkKey.of(headKey, id, number), sink))) {
      removeEveryChunkOf(headKey, id, sink);
    }
  }

  /**
   * Removes every chunk of the collection {@code id} at {@code headKey}, walking the whole store:
   * for a collection one of whose index pages is gone, whose chunks nothing else names.
   */
  private void removeEveryChunkOf(byte[] headKey, long id, ChangeSink sink) {
    List<byte[]> found = new ArrayList<>();
    for (byte[] k : keyspace.cache().asMap().keySet()) {
      if (ChunkKey.isChunkOf(k, headKey) && ChunkKey.idOf(k) == id) {
        found.add(k);
      }
    }
    for (byte[] k : found) {
      removeChunk(k, sink);
    }
  }

  /** The numbers of the chunk entries a head names (through the index pages present). */
  private Set<Integer> named(byte[] headKey, ChunkIndex index) {
    Set<Integer> named = new HashSet<>();
    index.forEachNumber(loader(headKey, index.id())::load, named::add);
    return named;
  }

  /** Removes the chunks a replaced value named, if it was a head. */
  void releaseIfHead(byte[] stored, byte[] raw, ChangeSink sink) {
    if (isHeadValue(raw)) {
      releaseChunks(stored, raw, sink);
    }
  }

  /** Removes a chunk, reporting it if it was there. */
  void removeChunk(byte[] chunkKey, ChangeSink sink) {
    if (keyspace.cache().remove(chunkKey) != null) {
      traffic.removed();
      if (sink != null) {
        sink.delete(chunkKey);
      }
    }
  }

  /** Writes a chunk of a collection of that type, reporting it; returns its stored key. */
  byte[] writeChunk(
      byte[] stored, ValueType type, long id, int number, byte[] payload, ChangeSink sink) {
    return put(
        ChunkKey.of(stored, id, number),
        ValueLayout.encodeChunk(type, keyspace.nextVersion(), payload, 0, payload.length),
        sink);
  }

  /**
   * Writes a chunk of a collection of that type whose payload is encoded straight into its stored
   * bytes, reporting it; returns its stored key.
   */
  byte[] writeChunk(
      byte[] stored, ValueType type, long id, int number, PayloadEncoder payload, ChangeSink sink) {
    int length = payload.length();
    byte[] value = ValueLayout.chunkWithRoom(type, keyspace.nextVersion(), length);
    payload.encodeAt(value, value.length - length);
    return put(ChunkKey.of(stored, id, number), value, sink);
  }

  private byte[] put(byte[] key, byte[] value, ChangeSink sink) {
    keyspace.cache().put(key, value);
    traffic.wrote(value.length);
    if (sink != null) {
      sink.put(key, value);
    }
    return key;
  }

  static void begin(ChangeSink sink) {
    if (sink != null) {
      sink.begin();
    }
  }

  static void end(ChangeSink sink) {
    if (sink != null) {
      sink.end();
    }
  }

  /**
   * Runs a read of a chunked collection under its key's stripe on the live value (null if absent),
   * counting a hit or a miss: an expired value is removed first, and a collection found with a
   * chunk missing (an eviction another thread has not finished) is dropped, and the read runs
   * again.
   */
  <R> R readLocked(byte[] stored, Function<StoredValue, R> read) {
    return readLive(stored, live -> read.apply(live.value()));
  }

  /**
   * {@link #readLocked} of a collection that a read may open: {@code opening} runs first, on the
   * live value, and its outcome's result is the read's if it opened the collection and served the
   * read (not null); else {@code read} runs on the live value.
   */
  <R> R readOpening(
      byte[] stored, Function<Live, Outcome<R>> opening, Function<StoredValue, R> read) {
    return readLive(
        stored,
        live -> {
          Outcome<R> served = opening.apply(live);
          return served != null ? served.result() : read.apply(live.value());
        });
  }

  /**
   * {@link #readLocked}, given the live value with its stored bytes (a read that opens the
   * collection keeps them as the head it opened from).
   */
  <R> R readLive(byte[] stored, Function<Live, R> read) {
    ReentrantLock stripe = keyspace.stripe(stored);
    while (true) {
      Live live;
      stripe.lock();
      try {
        live = live(stored);
        StoredValue v = live.value();
        if (!live.expired()) {
          keyspace.countRead(v != null);
          return read.apply(live);
        }
      } catch (MissingChunk e) {
        dropBroken(stored);
        continue;
      } finally {
        stripe.unlock();
      }
      removeExpired(stored, live.raw());
    }
  }

  /**
   * What one run of a command that may change a collection came to.
   *
   * @param result the command's result
   * @param change the key's change to report, or null for none
   */
  record Outcome<R>(R result, Keyspace.Change change) {}

  /**
   * One run of a command under the key's stripe, its changes given to the sink (null if unlogged).
   */
  @FunctionalInterface
  interface Attempt<R> {
    /** Returns what the run came to, or null if the head changed before it was replaced. */
    Outcome<R> run(ChangeSink sink);
  }

  /**
   * Runs a command that may change a collection: each attempt under the key's stripe and as one
   * group of logged changes, again when it returns null (the head changed under it) or found a
   * chunk missing (the collection is dropped first); the change of the run that took effect is
   * reported after the stripe is released.
   */
  <R> R editLocked(byte[] stored, Attempt<R> attempt) {
    ReentrantLock stripe = keyspace.stripe(stored);
    while (true) {
      Outcome<R> outcome;
      stripe.lock();
      try {
        ChangeSink sink = keyspace.sinkIfLogged();
        begin(sink);
        try {
          outcome = attempt.run(sink);
        } catch (MissingChunk e) {
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
   * Deletes a collection its command emptied, under its stripe: the run's outcome, or null if the
   * head changed since {@code live} was read.
   */
  <R> Outcome<R> deleteEmptied(byte[] stored, Live live, R result, ChangeSink sink) {
    if (live.value() == null) {
      return new Outcome<>(result, null);
    }
    if (!swapHead(stored, live.raw(), null)) {
      return null;
    }
    if (sink != null) {
      sink.delete(stored);
    }
    releaseIfHead(stored, live.raw(), sink);
    return new Outcome<>(result, new Keyspace.Change(live.value(), null, live.expired()));
  }

  /**
   * Replaces a collection's stored value {@code raw} (null if absent) with {@code bytes}, under its
   * stripe, and logs it; if the value changed since it was read, removes the chunks the run wrote
   * under fresh numbers ({@code written}) instead and returns false, for the run to start again.
   */
  boolean replaceHead(
      byte[] stored, byte[] raw, byte[] bytes, List<byte[]> written, ChangeSink sink) {
    if (!swapHead(stored, raw, bytes)) {
      for (byte[] k : written) {
        removeChunk(k, sink);
      }
      return false;
    }
    if (bytes != null) {
      traffic.wroteHead(bytes.length);
    }
    if (sink != null) {
      sink.put(stored, bytes);
    }
    return true;
  }

  /** The live value of a key and its stored bytes, or nulls. */
  @SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
  record Live(byte[] raw, StoredValue value, boolean expired) {}

  Live live(byte[] stored) {
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

  /** Removes an expired value (and its chunks, if a head) if it is still those bytes. */
  void removeExpired(byte[] stored, byte[] raw) {
    if (keyspace.cache().remove(stored, raw)) {
      keyspace.countExpired();
      keyspace.observer().expired(stored);
      if (isHeadValue(raw)) {
        release(stored, raw);
      }
    }
  }

  /**
   * Removes a collection a chunk of which is missing (under its stripe): its eviction, which a
   * thread has not finished yet.
   */
  void dropBroken(byte[] stored) {
    byte[] raw = keyspace.cache().getIfPresent(stored);
    if (raw != null && isHeadValue(raw)) {
      evictWhole(stored, indexOf(raw).id());
    }
  }

  /**
   * Replaces a key's stored bytes if they are still {@code expected} (null: absent); {@code next}
   * null removes the key. A compute, which every store (a clustered one too) runs atomically.
   *
   * @return whether it was replaced
   */
  boolean swapHead(byte[] stored, byte[] expected, byte[] next) {
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

  /**
   * Returns a key's live value with a chunked collection read whole into a packed payload; null if
   * absent (or a chunk is missing: the collection is then removed, being evicted).
   */
  StoredValue materialized(byte[] stored) {
    ReentrantLock stripe = keyspace.stripe(stored);
    stripe.lock();
    try {
      OpenCollections tier = keyspace.openIfAny();
      if (tier != null) {
        tier.closeLocked(stored);
      }
      while (true) {
        Live live = live(stored);
        StoredValue v = live.value();
        if (v == null || !isHead(v)) {
          return v;
        }
        try {
          return v.withPayload(wholePayload(stored, v));
        } catch (MissingChunk e) {
          dropBroken(stored);
        }
      }
    } finally {
      stripe.unlock();
    }
  }

  /**
   * The keyspace's generic update of a key holding a chunked collection (EXPIRE, RESTORE over it,
   * SET over it, a command of its type without a chunk-wise path...), under its stripe: {@code fn}
   * sees the collection read whole. A result that keeps the very payload it was given changes only
   * the head (the expiry, version...); another result replaces the collection, whose chunks go.
   *
   * @param bytes if not null, gets the head's or new value's stored bytes (for the caller's log)
   */
  @SuppressWarnings("ReferenceEquality") // an update that returns its input made no change
  Keyspace.Change updateWhole(
      byte[] stored, UnaryOperator<StoredValue> fn, boolean newVersion, byte[][] bytes) {
    ReentrantLock stripe = keyspace.stripe(stored);
    stripe.lock();
    try {
      OpenCollections tier = keyspace.openIfAny();
      if (tier != null) {
        tier.closeLocked(stored);
      }
      ChangeSink sink = keyspace.sinkIfLogged();
      while (true) {
        Live live = live(stored);
        byte[] raw = live.raw();
        if (raw == null || !isHeadValue(raw) || live.expired()) {
          if (live.expired()) {
            removeExpired(stored, raw);
          }
          return plainUpdate(stored, fn, newVersion, bytes);
        }
        StoredValue head = live.value();
        byte[] whole;
        try {
          whole = wholePayload(stored, head);
        } catch (MissingChunk e) {
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
        boolean keeps = after.type() == head.type() && after.payload() == whole;
        byte[] next = ValueLayout.encode(keeps ? after.withPayload(head.payload()) : after);
        if (!keyspace.cache().replace(stored, raw, next)) {
          continue;
        }
        if (!keeps) {
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

  /** An update of a key that no longer holds a chunked collection: the keyspace's own compute. */
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
   * After recovery: removes chunks no head names and collections a chunk of which is missing (see
   * {@link Keyspace#restoreSettle}).
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
      if (ChunkKey.isChunkKey(k)) {
        chunkKeys.add(k);
        chunks
            .computeIfAbsent(owner(ChunkKey.headKeyOf(k), ChunkKey.idOf(k)), o -> new HashSet<>())
            .add(ChunkKey.numberOf(k));
      } else if (isHeadValue(e.getValue())) {
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
      ChunkIndex index = indexOf(raw);
      String owner = owner(k, index.id());
      Set<Integer> held = chunks.getOrDefault(owner, Set.of());
      // complete: every index page present, and every chunk the head and its pages name
      Set<Integer> named = new HashSet<>();
      boolean complete = index.forEachNumber(loader(k, index.id())::load, named::add);
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
      Set<Integer> named = whole.get(owner(ChunkKey.headKeyOf(k), ChunkKey.idOf(k)));
      if (named == null || !named.contains(ChunkKey.numberOf(k))) {
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
