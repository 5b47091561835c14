package dev.larder.server.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The open collections of a keyspace: hot chunked sets, hashes, sorted sets and lists held in
 * memory, every chunk read, so that their commands change them there and write nothing to the store
 * until they close (docs/design/server.md, "Open collections"). While a collection is open the
 * store keeps its older image, complete and consistent (its head and the chunks that head names),
 * so every path that does not know of this tier still finds a whole collection there; the ones that
 * read or change the key other than through its type's commands close it first.
 *
 * <p>The rule, for now: only a standalone keyspace without a log opens collections (a logged one
 * would have to write the tier's changes before acknowledging them; a clustered one keeps every
 * collection packed).
 *
 * <ul>
 *   <li><b>Admission.</b> A chunked set, hash, sorted set or list opens at a command on its key (a
 *       change or a read) once its key had {@code openAfter} commands within a second (a small
 *       table of counters by key hash), if the tier has room for it and the keyspace's store and
 *       tier together are under {@code maxmemory}; a list too large for that opens held partly
 *       ({@link ListBody#holdPartly}: its ends and what its commands change) if that much fits.
 *   <li><b>Closing</b> (its changes written to the store as one change of the key, then dropped):
 *       idle for a second, or the tier over its budget (a background task every 100 ms, and a
 *       command that finds the tier over its budget closes its own key); before a generic read or
 *       update of the key ({@link ChunkStore#materialized}, {@link ChunkStore#updateWhole}, {@link
 *       Keyspace#peekHeader}); at {@code CONFIG SET maxmemory} and when the keyspace closes. A
 *       FLUSHDB or FLUSHALL drops them without writing.
 *   <li><b>Replacement.</b> A blind SET or DEL replaces the head without the key's stripe: each
 *       close compares the store's head with the one the collection was opened from, and drops the
 *       collection if they differ (the replacement came after every change the tier holds); a
 *       command does so only while its collection is marked by a blind write or an eviction ({@link
 *       #blindWriteBegins}, {@link #servable}). A close writes nothing if they differ, so it never
 *       writes a chunk of a head already replaced; a replacement after the check releases the old
 *       head's chunks once the closer left the stripe, which removes the chunks the close wrote in
 *       place.
 *   <li><b>Eviction and expiry.</b> The store evicts or expires the head (or a chunk: its
 *       collection with it) as ever; the collection is dropped under the stripe by the eviction's
 *       follow-up, or at its next command by the head check; an expired one is dropped and the
 *       command goes on through the store, which removes it once.
 *   <li><b>Memory.</b> An open collection's bytes (its chunks' payloads and a fixed cost per chunk)
 *       count in {@link Keyspace#memoryUsed} on top of the store's, whose image of the collection
 *       stays: the tier's budget bounds what is counted twice.
 * </ul>
 *
 * <p>Thread-safe: an open collection is read and changed only under its key's stripe.
 */
final class OpenCollections {
  /**
   * An open collection's bytes besides its chunks' payloads, per chunk (segment and array; a sorted
   * set's per chunk and per index page, its entry-offset tables counted apart).
   */
  static final int SEGMENT_OVERHEAD = 64;

  /** A collection idle this long closes. */
  static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Changes within the window that open a collection, by default. */
  static final int OPEN_AFTER = 16;

  private static final int HOT_SLOTS = 256;

  private static final int BLIND_SLOTS = 64;
  private static final int BLIND_SPACING = 16;

  /**
   * An open collection's bytes are counted again after this many changes: the count walks its
   * chunks, too dear for every command; between two counts a collection grows by at most this many
   * changes, which the tier's bound allows for.
   */
  static final int RECOUNT_EVERY = 64;

  private static final System.Logger LOG = System.getLogger(OpenCollections.class.getName());

  /** One open collection. Its fields are read and written under its key's stripe. */
  static final class Open {
    final byte[] stored;
    final ValueType type;

    /** The head's stored bytes it was opened from: what the store must still hold. */
    final byte[] headRaw;

    /** The head decoded (its payload the head's). */
    final StoredValue head;

    /** A set's or hash's body; null for a sorted set. */
    final RangeBody body;

    /** A sorted set's body; null for a set or hash. */
    final ZSetBody zset;

    /** A list's body; null for any other type. */
    final ListBody list;

    /** Its bytes as last counted in the tier's total. */
    long bytes;

    /** Changes since its bytes were last counted. */
    int changesSinceCount;

    /**
     * When it was last seen used ({@link System#nanoTime}): set when it opens and by the closing
     * task, which finds {@link #used} set; read by the closing task alone after that.
     */
    volatile long usedAt;

    /**
     * Set by every command that uses it, cleared by the closing task: a flag, not a time, so that a
     * command does not read the clock (the closing task's 100 ms round is the idle time's grain).
     */
    volatile boolean used;

    /**
     * Set when the store's head may no longer be {@link #headRaw}: by a blind write of the key as
     * it begins, by an eviction of its head, and from the start (the head read at the open is
     * checked once); cleared by {@link #headUnchanged} once it finds the head in place with no
     * blind write of the key's slot under way. While clear, a command need not read the store.
     */
    volatile boolean headMoved = true;

    Open(byte[] stored, ValueType type, byte[] headRaw, StoredValue head, RangeBody body) {
      this.stored = stored;
      this.type = type;
      this.headRaw = headRaw;
      this.head = head;
      this.body = body;
      this.zset = null;
      this.list = null;
      this.usedAt = System.nanoTime();
    }

    /** An open sorted set. */
    Open(byte[] stored, byte[] headRaw, StoredValue head, ZSetBody zset) {
      this.stored = stored;
      this.type = ValueType.ZSET;
      this.headRaw = headRaw;
      this.head = head;
      this.body = null;
      this.zset = zset;
      this.list = null;
      this.usedAt = System.nanoTime();
    }

    /** An open list. */
    Open(byte[] stored, byte[] headRaw, StoredValue head, ListBody list) {
      this.stored = stored;
      this.type = ValueType.LIST;
      this.headRaw = headRaw;
      this.head = head;
      this.body = null;
      this.zset = null;
      this.list = list;
      this.usedAt = System.nanoTime();
    }
  }

  /** A stored key as a map key. */
  @SuppressWarnings("ArrayRecordComponent") // equality by content, below
  private record Key(byte[] stored, int hash) {
    Key(byte[] stored) {
      this(stored, Arrays.hashCode(stored));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.stored, stored);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return "Key" + Arrays.toString(stored);
    }
  }

  private final Keyspace keyspace;
  private final ConcurrentHashMap<Key, Open> open = new ConcurrentHashMap<>();

  /**
   * How many collections are open, raised before one enters {@link #open} and lowered after one
   * leaves it, so that it is never 0 while one is there: {@link #any} reads it alone.
   */
  private final AtomicInteger openCount = new AtomicInteger();

  /**
   * Blind writes under way (a put or removal of a key without its stripe), counted by slot of their
   * key's hash, {@link #BLIND_SPACING} ints apart so that two slots do not share a cache line: see
   * {@link #blindWriteBegins}.
   */
  private final AtomicIntegerArray blindWrites =
      new AtomicIntegerArray(BLIND_SLOTS * BLIND_SPACING);

  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong closed = new AtomicLong();

  // The admission counters, guarded by this.
  private final int[] hotHash = new int[HOT_SLOTS];
  private final int[] hotCount = new int[HOT_SLOTS];
  private final long[] hotSince = new long[HOT_SLOTS];

  private volatile boolean enabled = true;
  private volatile int openAfter = OPEN_AFTER;
  private volatile long budget;

  /** The closing task's thread, started with the first open collection; guarded by this. */
  private ScheduledExecutorService closer;

  private boolean shut;

  /**
   * @param keyspace the keyspace
   * @param budget the most bytes open collections hold together
   */
  OpenCollections(Keyspace keyspace, long budget) {
    this.keyspace = keyspace;
    this.budget = budget;
  }

  /** The default budget for a keyspace of that bound: a sixteenth of it, at most 64 MiB. */
  static long defaultBudget(long maxMemory) {
    return Math.min(maxMemory / 16, 64L << 20);
  }

  /** Turns the tier on or off; off closes every open collection. */
  void enable(boolean on) {
    enabled = on;
    if (!on) {
      closeAll();
    }
  }

  boolean enabled() {
    return enabled;
  }

  /** Sets how many changes within a second open a collection (at least 1). */
  void openAfter(int changes) {
    openAfter = Math.max(1, changes);
  }

  /** Sets the tier's budget in bytes (a bound lowered closes collections at the next check). */
  void budget(long limit) {
    budget = limit;
  }

  long budget() {
    return budget;
  }

  /**
   * Returns whether any collection may be open: one volatile read on every generic path. False
   * means none was open at the read; true may be a collection entering or leaving.
   */
  boolean any() {
    return openCount.get() != 0;
  }

  /** Returns the open collection of a stored key, or null. */
  Open get(byte[] stored) {
    return openCount.get() == 0 ? null : open.get(new Key(stored));
  }

  /** Returns the number of open collections. */
  int count() {
    return open.size();
  }

  /** Returns the bytes open collections hold. */
  long bytes() {
    return bytes.get();
  }

  /** Returns how many collections opened so far and how many closed or were dropped. */
  long[] counters() {
    return new long[] {opened.get(), closed.get()};
  }

  /**
   * Counts a change of a chunked collection made through the store, and returns whether its key is
   * now hot enough to open. Called under the key's stripe.
   */
  synchronized boolean hot(byte[] stored) {
    int h = Arrays.hashCode(stored);
    int slot = (h ^ (h >>> 16)) & (HOT_SLOTS - 1);
    long now = System.nanoTime();
    if (hotHash[slot] != h || now - hotSince[slot] > TimeUnit.SECONDS.toNanos(1)) {
      hotHash[slot] = h;
      hotCount[slot] = 0;
      hotSince[slot] = now;
    }
    return ++hotCount[slot] >= openAfter;
  }

  /** Returns whether a collection of that many bytes may open now. */
  boolean room(long collectionBytes) {
    return enabled
        && collectionBytes <= budget / 4
        && bytes.get() + collectionBytes <= budget
        && keyspace.storeMemoryUsed() + bytes.get() + collectionBytes <= keyspace.maxMemory();
  }

  /**
   * Returns whether the tier holds more than its budget, or more than the store leaves room for.
   */
  boolean over() {
    long held = bytes.get();
    return held > budget || keyspace.storeMemoryUsed() + held > keyspace.maxMemory();
  }

  /** Registers a collection opened under its key's stripe. */
  void add(Open o) {
    o.bytes = sizeOf(o);
    bytes.addAndGet(o.bytes);
    openCount.incrementAndGet();
    open.put(new Key(o.stored), o);
    opened.incrementAndGet();
    startCloser();
  }

  /**
   * Counts a command's change of an open collection (under its stripe): its time, and every {@link
   * #RECOUNT_EVERY} changes its bytes (a walk of its chunks). Returns whether the bytes were
   * counted again.
   */
  boolean used(Open o) {
    o.used = true;
    if (++o.changesSinceCount < RECOUNT_EVERY) {
      return false;
    }
    o.changesSinceCount = 0;
    long now = sizeOf(o);
    if (now != o.bytes) {
      bytes.addAndGet(now - o.bytes);
      o.bytes = now;
    }
    return true;
  }

  /**
   * Returns whether the store still holds the head an open collection was opened from: its stored
   * bytes compared where they lie in the store, not copied out (a blind SET or DEL, an expiry or an
   * eviction since then makes them differ). Under the collection's stripe.
   */
  boolean holdsHead(Open o) {
    byte[] expected = o.headRaw;
    Boolean same =
        keyspace
            .cache()
            .read(
                o.stored,
                view ->
                    view.remaining() == expected.length
                        && view.mismatch(ByteBuffer.wrap(expected)) < 0);
    return same != null && same;
  }

  /**
   * Announces a blind write of a key (a put or removal without its stripe, which may replace an
   * open collection's head), before the store's write: marks the key's open collection, if any, and
   * counts the write under way in its key's slot until {@link #blindWriteDone}. With {@link
   * #headUnchanged} this keeps every command that runs after the store's write from serving the
   * replaced collection: a collection open before this call is marked here; one that opens after it
   * starts marked and is not cleared while the count is up, so the command that clears it reads the
   * store after this write's end. Any thread.
   *
   * @return the slot to give {@link #blindWriteDone}
   */
  int blindWriteBegins(byte[] stored) {
    int slot = blindSlot(stored);
    blindWrites.getAndIncrement(slot);
    markMoved(stored);
    return slot;
  }

  /** Ends a blind write announced by {@link #blindWriteBegins}, after the store's write. */
  void blindWriteDone(int slot) {
    blindWrites.getAndDecrement(slot);
  }

  /**
   * Marks the open collection of a key, if any, as possibly replaced: its head was evicted (the
   * store's eviction listener, in the evicting thread). Any thread.
   */
  void markMoved(byte[] stored) {
    if (openCount.get() != 0) {
      Open o = open.get(new Key(stored));
      if (o != null) {
        o.headMoved = true;
      }
    }
  }

  /**
   * Returns whether an open collection's head is still the store's, reading the store ({@link
   * #holdsHead}) only when the collection is marked ({@link Open#headMoved}): the check every
   * command on an open collection makes. Under the collection's stripe.
   *
   * <p>The mark is cleared before the count of blind writes under way is read, and set again if
   * that count is not 0: a blind write that begins after the read sets the mark after the clear, so
   * it stays; one counted is past its store write once the count drops, and the next command reads
   * the store again.
   */
  private boolean headUnchanged(Open o) {
    if (!o.headMoved) {
      return true;
    }
    o.headMoved = false;
    if (blindWrites.get(blindSlot(o.stored)) != 0) {
      o.headMoved = true;
    }
    return holdsHead(o);
  }

  /**
   * Returns whether a command may be served from an open collection (under its stripe): its head is
   * still the store's ({@link #headUnchanged}) and has not expired. If not, the collection is
   * dropped without writing (a replacement came after every change it holds; an expired key's
   * changes are gone with it) and the command runs on the store.
   */
  boolean servable(Open o) {
    if (headUnchanged(o) && (o.head.expiresAtMillis() == 0 || !o.head.expiredAt(keyspace.now()))) {
      return true;
    }
    drop(o);
    return false;
  }

  private static int blindSlot(byte[] stored) {
    int h = Arrays.hashCode(stored);
    return ((h ^ (h >>> 16)) & (BLIND_SLOTS - 1)) * BLIND_SPACING;
  }

  /** Takes an open collection out of the tier (under its stripe), without writing it. */
  void drop(Open o) {
    if (open.remove(new Key(o.stored), o)) {
      openCount.decrementAndGet();
      bytes.addAndGet(-o.bytes);
      closed.incrementAndGet();
    }
  }

  private static long sizeOf(Open o) {
    if (o.zset != null) {
      return o.zset.heldBytes() + (long) SEGMENT_OVERHEAD * o.zset.segmentCount();
    }
    if (o.list != null) {
      return o.list.heldBytes() + (long) SEGMENT_OVERHEAD * o.list.heldSegments();
    }
    return o.body.bytes() + (long) SEGMENT_OVERHEAD * o.body.segmentCount();
  }

  /**
   * Closes the open collection of a key, if any: written to the store and dropped. The caller holds
   * the key's stripe.
   */
  void closeLocked(byte[] stored) {
    Open o = get(stored);
    if (o != null && o.zset != null) {
      keyspace.zsetStore().close(o);
    } else if (o != null && o.list != null) {
      keyspace.listStore().close(o);
    } else if (o != null) {
      keyspace.rangeStore(o.type).close(o);
    }
  }

  /** Closes the open collection of a key, if any, taking its stripe. Must not hold a stripe. */
  void close(byte[] stored) {
    if (get(stored) == null) {
      return;
    }
    ReentrantLock stripe = keyspace.stripe(stored);
    stripe.lock();
    try {
      closeLocked(stored);
    } finally {
      stripe.unlock();
    }
    keyspace.settleChunks();
  }

  /** Closes every open collection. Must not hold a stripe. */
  void closeAll() {
    for (Key k : new ArrayList<>(open.keySet())) {
      close(k.stored());
    }
  }

  /** Drops the open collections of a database (FLUSHDB), or all of them (db -1), unwritten. */
  void dropAll(int db) {
    for (Open o : new ArrayList<>(open.values())) {
      if (db < 0 || o.stored[0] == db) {
        ReentrantLock stripe = keyspace.stripe(o.stored);
        stripe.lock();
        try {
          drop(o);
        } finally {
          stripe.unlock();
        }
      }
    }
  }

  /**
   * The closing task: closes the collections idle for a second, then the least recently used while
   * the tier is over its budget. Holds the keyspace's shared lock, as a command does, so that no
   * exclusive command (FLUSHALL...) runs beside a close.
   */
  private void sweep() {
    if (open.isEmpty()) {
      return;
    }
    Lock shared = keyspace.shared();
    shared.lock();
    try {
      long now = System.nanoTime();
      List<Open> all = new ArrayList<>(open.values());
      for (Open o : all) {
        if (o.used) {
          o.used = false;
          o.usedAt = now;
        } else if (now - o.usedAt > IDLE_NANOS) {
          close(o.stored);
        }
      }
      if (over()) {
        all = new ArrayList<>(open.values());
        all.sort((a, b) -> Long.compare(a.usedAt, b.usedAt));
        for (int i = 0; i < all.size() && over(); i++) {
          close(all.get(i).stored);
        }
      }
    } finally {
      shared.unlock();
    }
  }

  private synchronized void startCloser() {
    if (closer != null || shut) {
      return;
    }
    closer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "larder-open-collections");
              t.setDaemon(true);
              return t;
            });
    var _ = closer.scheduleWithFixedDelay(this::sweepSafely, 100, 100, TimeUnit.MILLISECONDS);
  }

  private void sweepSafely() {
    try {
      sweep();
    } catch (RuntimeException e) {
      // The task must outlive one bad close (the keyspace closed under it, a broken chunk).
      LOG.log(System.Logger.Level.WARNING, "closing open collections failed", e);
    }
  }

  /** Closes every open collection and stops the closing task: the keyspace is closing. */
  void shutdown() {
    ScheduledExecutorService c;
    synchronized (this) {
      shut = true;
      c = closer;
      closer = null;
    }
    if (c != null) {
      c.shutdownNow();
      try {
        c.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeAll();
  }
}
