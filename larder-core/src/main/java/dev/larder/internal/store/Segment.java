package dev.larder.internal.store;

import dev.larder.RemovalCause;
import dev.larder.internal.bulk.BulkSnapshot;
import dev.larder.internal.bulk.EncodedEntries;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One lock stripe of the store: an open-addressing index of primitive slots over entries kept as
 * bytes in pages, with its own share of the bound and its own eviction.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Index.</b> A {@code long[]} of {@link IndexSlot}s with linear probing and tombstones, so
 *       that a present key's slot never moves; tombstones are purged by rebuilding the table. Home
 *       positions come from the slot's tag, so the table can grow (by 1.2x at load 0.85, keeping
 *       memory per entry steady) without reading keys back.
 *   <li><b>Pages.</b> Entries ({@link EntryLayout}) are appended to the head page of a {@link
 *       PageQueue} (or to the end of the page behind it, if they fit there). An entry never changes
 *       after it is written (except its deadline); a write appends a new version and the old bytes
 *       become dead until their page is consumed at a queue tail or compacted.
 *   <li><b>Reads</b> take no lock and never wait for a writer, not even one that holds the
 *       segment's lock and has been descheduled: a reader copies what it needs, then checks that
 *       the slot still points to the same entry, that the page was not recycled (its generation),
 *       and that the table was not replaced; if any changed, it reads again. Slots are published
 *       with release stores after the entry's bytes are written. Torn reads of pages being recycled
 *       or freed surface as bounds exceptions (memory access through {@link MemorySegment} is
 *       always checked) and are retried; freed memory stays readable while a reader can reach its
 *       page, even after close (see {@link PageMemory} and {@code MappedPageMemory}), and close
 *       raises every page's generation and replaces the table before giving memory back, so a
 *       reader racing it reads again, finds the segment closed and throws {@link
 *       IllegalStateException}.
 *   <li><b>Writes</b> hold the write lock for the index and page work only: no user code (codecs,
 *       loaders, listeners) ever runs under it. A write first decides whether its entry could fit
 *       with every other entry evicted (checkFits), so a refused write evicts nothing; an update
 *       that consumes its own old entry while making room reports it as REPLACED, not as an
 *       eviction.
 *   <li><b>Eviction</b> consumes entries one at a time at the queue tails and asks the {@link
 *       EvictionPolicy} what to do with each: relocate (copy to a head) or evict. A page returns to
 *       the pool when its queue's tail has passed it. One standard page of slack is kept for
 *       relocation, so that the policy can always move the entries it keeps. Entries of different
 *       sizes are handled naturally, since the bound is in bytes.
 *   <li><b>Splitting.</b> A cache starts with one segment for all its stripes and splits it once
 *       ({@link #splitInto}): the entries are copied to the stripes under the write lock, then the
 *       segment retires as a closed one, with {@link #successors} set first; every call that then
 *       finds it closed forwards to the successor of its key, and a reader that raced the
 *       retirement fails its validation (new table) and forwards on its next attempt. See
 *       docs/design/small-caches.md.
 * </ul>
 */
public final class Segment {

  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final int MIN_CAPACITY = 16;

  /**
   * Index slots {@link #keys} copies per hold of the write lock: a few hundred microseconds of
   * copying, so that a write to the segment never waits for a whole walk.
   */
  static final int KEYS_STEP_SLOTS = 4096;

  /**
   * Entries a segment can hold at most: its index's largest table at the highest load it allows
   * (see ensureIndexRoom), about 3.5 million.
   */
  public static final long MAX_ENTRIES = IndexSlot.MAX_CAPACITY * 17L / 20 - 1;

  /** Entries the policy's tables describe at most, however large the segment's entry bound. */
  private static final int MOST_POLICY_ENTRIES = 1 << 20;

  /**
   * The largest entry bound whose policy tables a segment allocates when it is created (12 bytes an
   * entry: 768 KiB); larger bounds grow them with the index.
   */
  static final int EAGER_POLICY_ENTRIES = 1 << 16;

  private static final byte[] NO_BYTES = new byte[0];

  /** Groups {@link #keysStartingWith} counts: one per byte value, and one for the empty key. */
  public static final int FIRST_BYTE_GROUPS = 257;

  /** Bytes of the segment's own objects: lock, queues, store, policy. */
  static final long FIXED_OVERHEAD = 640;

  private final StampedLock lock = new StampedLock();
  private final StoreSettings settings;
  private final boolean expires;
  private final PageStore pages;
  private final PageQueue window = new PageQueue("window");
  private final PageQueue main = new PageQueue("main");

  /** Main entries read again while in main: SLRU's protected segment (see EvictionPolicy). */
  private final PageQueue protectedQueue = new PageQueue("protected");

  private final FrequencySketch sketch;

  /** Entries the policy's tables grow to describe: the entry bound up to a limit, or unlimited. */
  private final int policyEntries;

  private final EvictionPolicy policy;
  private volatile long[] table = new long[MIN_CAPACITY];
  private volatile int size;

  /**
   * Live entries by the first byte of their encoded key ({@link #FIRST_BYTE_GROUPS} counts, the
   * last one for the empty key), then as many counts of those among them whose value is marked (see
   * {@link #countKeysByFirstByte}); null if the cache does not count them. Changed with {@link
   * #size}, and when a put replaces a value, under the write lock.
   */
  private int[] firstByteCounts;

  /** The bits of a value's first byte that mark it for {@link #markedKeysStartingWith}. */
  private int valueMark;

  /** What {@link #touchHomeSlots} read, kept so that its reads are made; never read itself. */
  @SuppressWarnings("unused")
  private long touchedSlots;

  /** Deleted slots not yet reclaimed by a rehash; they count towards the load. */
  private int tombstones;

  private long pageLiveBytes;

  /** Dead bytes when a compaction scan last found no page to evacuate. */
  private long deadAtFruitlessScan;

  /** Live bytes compaction copied out of the pages it evacuated, since the segment was made. */
  private long evacuatedBytes;

  /** Set once eviction first runs: from then on every window entry passes admission. */
  private boolean reachedBound;

  private int sweepCursor;
  private volatile boolean closed;

  /**
   * The segments this one handed its entries to (see {@link #splitInto}), a power of two of them,
   * each holding the keys whose {@code hash & (length - 1)} is its index; set before {@link
   * #closed}, so that a call finding the segment closed finds them too. Null unless split.
   */
  private volatile Segment[] successors;

  private List<RemovedEntry> removals = List.of();

  /** Slot of the key a put is updating while it makes room, else -1; under the write lock. */
  private int updatingSlot = -1;

  /** Set by checkFits for a write whose entry fits only if the page size stays as it is. */
  private boolean holdPageSize;

  private int evictions;
  private int expirations;

  /** The segment's part of the hot tier, or null if the cache has none. */
  private final HotShard hot;

  /**
   * @param settings the segment's share of the cache's settings
   */
  public Segment(StoreSettings settings) {
    this(settings, null);
  }

  /**
   * @param settings the segment's share of the cache's settings
   * @param hotTier the segment's share of the cache's hot tier, or null for none
   */
  public Segment(StoreSettings settings, HotTierShare hotTier) {
    this.settings = settings;
    this.hot =
        hotTier == null
            ? null
            : new HotShard(hotTier.table(), hotTier.budgetBytes(), hotTier.maxEntries());
    this.expires = settings.expires();
    this.pages = new PageStore(settings);
    boolean byteBound = byteBound();
    this.policyEntries =
        byteBound
            ? Integer.MAX_VALUE
            : (int) Math.min(MOST_POLICY_ENTRIES, Math.max(MIN_CAPACITY, settings.maxEntries()));
    // Tables for a large entry bound start small and grow with the index, as a byte bound's
    // do: a bound is a ceiling, and maximumEntries(Long.MAX_VALUE) must not allocate gigabytes
    // for a cache that may hold a few entries. Smaller bounds get their tables at once, so that
    // filling the cache never resets what the policy has learnt.
    int expected =
        policyEntries <= EAGER_POLICY_ENTRIES ? policyEntries : policyTarget(MIN_CAPACITY);
    // An entry bound leaves memory free to spend on accuracy (16 sketch counters and a ghost
    // slot per entry: 12 bytes); a byte bound counts every byte (4 counters and a slot per eight
    // entries: 2.5 bytes). An entry bound's tables, sized for the bound rather than the
    // contents, are made when first needed: the sketch's once it has recorded a quarter of its
    // bytes in hashes or an admission asks for a count, the others at the first ghost or sample.
    // Each behaves exactly as if made at once (see the classes), so no decision changes, and a
    // cache that stays small never pays 12 bytes an entry of a bound it is far from. A byte
    // bound's tables count against its budget from the start, as they always did.
    boolean lazy = !byteBound;
    this.sketch = new FrequencySketch(expected, byteBound ? 4 : 16, lazy);
    this.policy =
        new EvictionPolicy(
            sketch,
            new GhostTable(expected, byteBound ? 8 : 1, lazy),
            new AdmissionSample(expected, lazy),
            window,
            main);
  }

  // ------------------------------------------------------------------ reads (no lock)

  /**
   * Returns a copy of the value bytes for a key, or null if absent or expired.
   *
   * @param key encoded key (only the first {@code keyLength} bytes count)
   * @param keyLength key length
   * @param hash {@link #hash} of the key
   * @param now ticker time, used only if entries expire
   * @param copy false to only test presence (then a non-null result is an empty array)
   */
  public byte[] get(byte[] key, int keyLength, long hash, long now, boolean copy) {
    return read(key, keyLength, hash, now, copy, true);
  }

  /**
   * As {@link #get}, but not an access: the eviction policy does not hear of it and an
   * expire-after-access deadline does not move (containsKey, iteration of the map views).
   */
  public byte[] peek(byte[] key, int keyLength, long hash, long now, boolean copy) {
    return read(key, keyLength, hash, now, copy, false);
  }

  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private byte[] read(
      byte[] key, int keyLength, long hash, long now, boolean copy, boolean access) {
    int tag = IndexSlot.tag(hash);
    for (; ; ) {
      if (closed) {
        return successor(hash).read(key, keyLength, hash, now, copy, access);
      }
      long[] t = table;
      try {
        byte[] value = tryRead(t, tag, key, keyLength, now, copy, hash, access);
        if (value != RETRY) {
          if (value == null && access) {
            policy.recordAccess(hash);
          }
          return value;
        }
      } catch (IndexOutOfBoundsException e) {
        // A torn read of a page that a writer was recycling or freeing: read again.
      }
      Thread.onSpinWait();
    }
  }

  private static final byte[] RETRY = new byte[0];
  private static final byte[] NO_MATCH = new byte[0];

  /**
   * One lock-free attempt: probe {@code t}, and validate everything read against the slot, the
   * page's generation and the table's identity.
   *
   * @return the value (or {@link #NO_BYTES} if not copying), null for a miss, or RETRY
   */
  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private byte[] tryRead(
      long[] t,
      int tag,
      byte[] key,
      int keyLength,
      long now,
      boolean copy,
      long hash,
      boolean access) {
    int capacity = t.length;
    int i = IndexSlot.home(tag, capacity);
    for (int probes = 0; probes < capacity; probes++) {
      long slot = (long) SLOTS.getAcquire(t, i);
      if (slot == IndexSlot.EMPTY) {
        return missOrRetry(t);
      }
      if (slot != IndexSlot.TOMBSTONE && IndexSlot.tagOf(slot) == tag) {
        byte[] result = readIfKey(t, i, slot, key, keyLength, now, copy, hash, access);
        if (result != NO_MATCH) {
          return result;
        }
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return missOrRetry(t);
  }

  /**
   * A probe of {@code t} found no entry: a miss, unless the table was replaced meanwhile or the
   * segment has retired. A split retires the segment by setting {@link #closed} and then replacing
   * its table with an empty one, so a reader that saw it open and then read the empty table must
   * not take that for a miss: it sees {@code closed} now (written before the table it read) and
   * reads again, from the successor.
   */
  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private byte[] missOrRetry(long[] t) {
    return table == t && !closed ? null : RETRY;
  }

  /**
   * Reads the entry {@code slot} points to if it holds {@code key}. Everything is read first and
   * checked afterwards: if the slot still points to the same entry, the page was not recycled
   * meanwhile, and the table was not replaced, then what was read was the entry's content at the
   * moment the slot was re-read (entries never change after they are written).
   *
   * @return the value, {@link #NO_BYTES}, null (expired), NO_MATCH (another key), or RETRY
   */
  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private byte[] readIfKey(
      long[] t,
      int i,
      long slot,
      byte[] key,
      int keyLength,
      long now,
      boolean copy,
      long hash,
      boolean access) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    if (page == null) {
      return RETRY;
    }
    int generation = page.generation();
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    boolean match =
        lengths >= 0
            && EntryLayout.keyLength(lengths) == keyLength
            && EntryLayout.keyEquals(
                page.memory, EntryLayout.keyOffset(offset, lengths, expires), key, keyLength);
    boolean expired =
        match && expires && isExpired(EntryLayout.deadline(page.memory, offset, lengths), now);
    byte[] value = match && !expired && copy ? readValueBytes(page, offset, lengths) : null;
    VarHandle.acquireFence();
    long current = (long) SLOTS.getAcquire(t, i);
    if (page.generation() != generation
        || IndexSlot.withClock(current, 0) != IndexSlot.withClock(slot, 0)
        || table != t) {
      return RETRY;
    }
    if (!match) {
      return NO_MATCH;
    }
    if (expired) {
      return null;
    }
    if (access) {
      onHit(t, i, current, page, offset, now, hash);
    }
    return copy ? value : NO_BYTES;
  }

  /** What {@link #view} returns for a key that is absent or expired. */
  public static final Object ABSENT = new Object();

  private static final Object RETRY_VIEW = new Object();

  /**
   * Hands {@code reader} a read-only view of a key's stored value bytes, without copying them, and
   * returns its result; an access, as {@link #get}. Lock-free: the reader runs on the page as it
   * is, then the read is validated as a copy would be; if a writer moved, removed or recycled the
   * entry meanwhile, the call's result (or exception) is discarded and the reader is called again
   * on the current bytes. So the reader may be called more than once, and only the result of a call
   * that saw the value whole is returned. The view stays readable after the call (it keeps its
   * page's memory reachable, so never touches freed memory) but may then show other bytes.
   *
   * @param reader given a buffer positioned at the value's first byte, limited at its length
   * @return the reader's result, or {@link #ABSENT}
   */
  public Object view(
      byte[] key,
      int keyLength,
      long hash,
      long now,
      Function<? super java.nio.ByteBuffer, ?> reader) {
    int tag = IndexSlot.tag(hash);
    for (; ; ) {
      if (closed) {
        return successor(hash).view(key, keyLength, hash, now, reader);
      }
      long[] t = table;
      try {
        Object result = tryView(t, tag, key, keyLength, now, hash, reader);
        if (result != RETRY_VIEW) {
          if (result == ABSENT) {
            policy.recordAccess(hash);
          }
          return result;
        }
      } catch (IndexOutOfBoundsException e) {
        // a torn read of a page being recycled: read again
      }
      Thread.onSpinWait();
    }
  }

  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private Object tryView(
      long[] t,
      int tag,
      byte[] key,
      int keyLength,
      long now,
      long hash,
      Function<? super java.nio.ByteBuffer, ?> reader) {
    int capacity = t.length;
    int i = IndexSlot.home(tag, capacity);
    for (int probes = 0; probes < capacity; probes++) {
      long slot = (long) SLOTS.getAcquire(t, i);
      if (slot == IndexSlot.EMPTY) {
        break;
      }
      if (slot != IndexSlot.TOMBSTONE && IndexSlot.tagOf(slot) == tag) {
        Object result = viewIfKey(t, i, slot, key, keyLength, now, hash, reader);
        if (result != NO_MATCH) {
          return result;
        }
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return missOrRetry(t) == null ? ABSENT : RETRY_VIEW;
  }

  /**
   * As {@link #readIfKey}, with the reader run on a view of the value where a copy would be made,
   * before the validation: a reader that ran on bytes a writer was changing has its result, or its
   * exception, discarded.
   */
  @SuppressWarnings("ReferenceEquality") // sentinel arrays, and the same table: no resize
  private Object viewIfKey(
      long[] t,
      int i,
      long slot,
      byte[] key,
      int keyLength,
      long now,
      long hash,
      Function<? super java.nio.ByteBuffer, ?> reader) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    if (page == null) {
      return RETRY_VIEW;
    }
    int generation = page.generation();
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    boolean match =
        lengths >= 0
            && EntryLayout.keyLength(lengths) == keyLength
            && EntryLayout.keyEquals(
                page.memory, EntryLayout.keyOffset(offset, lengths, expires), key, keyLength);
    boolean expired =
        match && expires && isExpired(EntryLayout.deadline(page.memory, offset, lengths), now);
    Object result = null;
    RuntimeException thrown = null;
    if (match && !expired) {
      int valueOffset = EntryLayout.keyOffset(offset, lengths, expires) + keyLength;
      // asSlice checks the range, so garbage lengths of a recycled page throw here (retried)
      java.nio.ByteBuffer view =
          page.memory
              .asSlice(valueOffset, EntryLayout.valueLength(lengths))
              .asByteBuffer()
              .asReadOnlyBuffer();
      try {
        result = reader.apply(view);
      } catch (RuntimeException e) {
        thrown = e;
      }
    }
    VarHandle.acquireFence();
    long current = (long) SLOTS.getAcquire(t, i);
    if (page.generation() != generation
        || IndexSlot.withClock(current, 0) != IndexSlot.withClock(slot, 0)
        || table != t) {
      return RETRY_VIEW;
    }
    if (!match) {
      return NO_MATCH;
    }
    if (expired) {
      return ABSENT;
    }
    if (thrown != null) {
      throw thrown;
    }
    onHit(t, i, current, page, offset, now, hash);
    return result;
  }

  /** Copies a value out of a page; the lengths may be garbage under a racing recycle. */
  private byte[] readValueBytes(Page page, int offset, long lengths) {
    int valueLength = EntryLayout.valueLength(lengths);
    if (valueLength > page.capacity) {
      throw new IndexOutOfBoundsException("value length " + valueLength);
    }
    int valueOffset =
        EntryLayout.keyOffset(offset, lengths, expires) + EntryLayout.keyLength(lengths);
    return copyBytes(page, valueOffset, valueLength);
  }

  private static byte[] copyBytes(Page page, long from, int length) {
    byte[] bytes = new byte[length];
    MemorySegment.copy(page.memory, ValueLayout.JAVA_BYTE, from, bytes, 0, length);
    return bytes;
  }

  /**
   * Tells the policy of a validated hit on the entry at {@code offset} of {@code page} (the page
   * the slot pointed to when it was re-read: the same entry, so no second page lookup).
   */
  private void onHit(long[] t, int i, long slot, Page page, int offset, long now, long hash) {
    if (IndexSlot.clock(slot) < IndexSlot.MAX_CLOCK) {
      SLOTS.compareAndSet(t, i, slot, IndexSlot.raiseClock(slot));
    }
    policy.onHit(page, offset, hash, IndexSlot.clock(slot));
    if (settings.expireAfterAccessNanos() > 0) {
      refreshDeadline(slot, now);
    }
  }

  /**
   * Moves an accessed entry's deadline forward. Needs the write lock, which a reader only tries for
   * (never waits): if a writer holds it through every attempt the deadline stays where it was, and
   * the next read refreshes it. Refreshes at most once a millisecond (or 1/64 of the lifetime if
   * shorter), so an entry can expire up to that much early.
   */
  private void refreshDeadline(long slot, long now) {
    long lifetime = settings.expireAfterAccessNanos();
    long tolerance = Math.min(1_000_000L, lifetime / 64);
    for (int attempt = 0; attempt < 64; attempt++) {
      long stamp = lock.tryWriteLock();
      if (stamp != 0) {
        try {
          rewriteDeadline(slot, now, lifetime, tolerance);
        } finally {
          lock.unlockWrite(stamp);
        }
        return;
      }
      Thread.onSpinWait();
    }
  }

  private void rewriteDeadline(long slot, long now, long lifetime, long tolerance) {
    if (closed || find(IndexSlot.tag(slot), IndexSlot.address(slot)) < 0) {
      return;
    }
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    long deadline = EntryLayout.deadline(page.memory, offset, lengths);
    long wanted = saturatingAdd(now, lifetime);
    if (wanted - deadline > tolerance) {
      EntryLayout.setDeadline(page.memory, offset, lengths, wanted);
    }
  }

  /** Index of the slot holding {@code key}, or -1. Writers only (under the write lock). */
  private int probe(long[] t, int tag, byte[] key, int keyLength) {
    int capacity = t.length;
    int i = IndexSlot.home(tag, capacity);
    for (int probes = 0; probes < capacity; probes++) {
      long slot = t[i];
      if (slot == IndexSlot.EMPTY) {
        return -1;
      }
      if (slot != IndexSlot.TOMBSTONE
          && IndexSlot.tagOf(slot) == tag
          && keyMatches(slot, key, keyLength)) {
        return i;
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return -1;
  }

  private boolean keyMatches(long slot, byte[] key, int keyLength) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    if (page == null) {
      return false;
    }
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    if (lengths < 0 || EntryLayout.keyLength(lengths) != keyLength) {
      return false;
    }
    int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
    return EntryLayout.keyEquals(page.memory, keyOffset, key, keyLength);
  }

  // ------------------------------------------------------------------ writes

  /**
   * Writes a value under {@code mode}.
   *
   * @param key encoded key
   * @param keyLength key length
   * @param value encoded value
   * @param valueLength value length
   * @param hash key hash
   * @param mode when to apply
   * @param expected for {@link PutMode#IF_EQUALS}, the expected value bytes
   * @param wantPrevious copy the previous value into the result
   * @param now ticker time
   * @return what happened; for IF_ABSENT not applied, {@code previous} is the present value
   * @throws IllegalArgumentException if the entry can never fit the segment's bound
   */
  public WriteResult put(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      long hash,
      PutMode mode,
      byte[] expected,
      boolean wantPrevious,
      long now) {
    return put(
        key, keyLength, value, valueLength, hash, mode, expected, wantPrevious, now, null, null);
  }

  /**
   * As {@link #put(byte[], int, byte[], int, long, PutMode, byte[], boolean, long)}, and if the key
   * has an entry in the hot tier, puts {@code replacement} there in its place (if it fits) once the
   * written entry is published, rather than only removing it.
   *
   * @param replacement the written value as readers will get it from the tier
   */
  public WriteResult put(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      long hash,
      PutMode mode,
      byte[] expected,
      boolean wantPrevious,
      long now,
      HotValue replacement) {
    return put(
        key,
        keyLength,
        value,
        valueLength,
        hash,
        mode,
        expected,
        wantPrevious,
        now,
        null,
        replacement);
  }

  /**
   * Stores a loaded value if the key is absent ({@link PutMode#IF_ABSENT}, previous value returned)
   * and {@code superseded}, asked under the lock, says that no write to the key has come since the
   * load began. Writers tell the load before they take the lock, so a write that holds the lock
   * before this store always stops it: the load cannot put back a value older than what the write
   * removed or stored.
   *
   * @return as {@link #put}; not applied with no previous value if superseded
   */
  public WriteResult putLoaded(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      long hash,
      long now,
      BooleanSupplier superseded) {
    return put(
        key,
        keyLength,
        value,
        valueLength,
        hash,
        PutMode.IF_ABSENT,
        null,
        true,
        now,
        superseded,
        null);
  }

  // ------------------------------------------------------------------ bulk restore

  /**
   * Stores keys new to the segment from a bulk restore's batch, under one hold of the write lock,
   * in order, until one needs what only {@link #put} does: entries {@code order[from..r)} are
   * stored, and the entry at {@code order[r]} (if {@code r < to}) is not, because its key is
   * present (an update), storing it would evict (the bound, the index's growth) or its entry is
   * larger than a standard page; the caller puts that one and calls again for the rest. Returns
   * {@code from} at once if the segment has retired (split or closed).
   *
   * <p>Each stored entry is what a put of a new key leaves: the policy hears of the insert, the
   * entry goes to the window's head and its slot is published with a release store after its bytes
   * (lock-free readers see it whole or not at all). What a put does per entry and a batch needs
   * once is done once at the end: the policy's step and window target. Nothing is evicted or
   * removed, so nothing is collected for listeners.
   *
   * @param entries the batch
   * @param hashes {@link #hash} of each entry's key, by entry
   * @param order entry indexes; this segment's run is {@code [from, to)}
   * @param from the run's first position in {@code order}
   * @param to the run's end
   * @param now ticker time (for an expiring cache's deadlines)
   * @return the position in {@code order} of the first entry not stored, {@code to} if all were
   */
  public int restore(
      EncodedEntries entries, long[] hashes, int[] order, int from, int to, long now) {
    long stamp = lock.writeLock();
    try {
      if (closed) {
        return from;
      }
      long deadline = expires ? saturatingAdd(now, settings.lifetimeNanos()) : 0;
      byte[] bytes = entries.bytes();
      touchHomeSlots(hashes, order, from, to);
      int at = from;
      for (; at < to; at++) {
        int e = order[at];
        if (!restoreNew(
            bytes,
            entries.keyOffset(e),
            entries.keyLength(e),
            entries.valueLength(e),
            hashes[e],
            deadline)) {
          break;
        }
      }
      if (at > from) {
        adaptPolicy();
      }
      return at;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Reads the home slot of each entry of a restore's run before any is stored. A large index's
   * slots are misses in the processor's caches; these reads do not depend on each other, so their
   * misses overlap, where each entry's probe, coming after the previous entry's copy, would wait
   * for its own. The sum is kept only so that the reads are not dropped as unused.
   */
  private void touchHomeSlots(long[] hashes, int[] order, int from, int to) {
    long[] t = table;
    int capacity = t.length;
    long sum = 0;
    for (int at = from; at < to; at++) {
      sum += t[IndexSlot.home(IndexSlot.tag(hashes[order[at]]), capacity)];
    }
    touchedSlots = sum;
  }

  /** One entry of {@link #restore}: stores it and returns true if it is new and fits as it is. */
  private boolean restoreNew(
      byte[] bytes, int keyOffset, int keyLength, int valueLength, long hash, long deadline) {
    int entrySize = (int) EntryLayout.size(keyLength, valueLength, expires);
    if (entrySize > pages.standardSize || size >= settings.maxEntries()) {
      return false;
    }
    int tag = IndexSlot.tag(hash);
    if (!ensureIndexRoom(false)) {
      return false;
    }
    int free = freeSlotIfAbsent(tag, bytes, keyOffset, keyLength);
    if (free < 0) {
      return false;
    }
    long address = append(window, entrySize, true, false);
    if (address < 0) {
      return false;
    }
    policy.onInsert(hash);
    Page page = pages.page(IndexSlot.page(address));
    EntryLayout.write(
        page.memory,
        IndexSlot.offset(address),
        bytes,
        keyOffset,
        keyLength,
        valueLength,
        expires,
        deadline);
    account(page, window, entrySize);
    if (hot != null && !hot.isEmpty()) {
      hot.remove(hash); // as put does; a key the segment does not hold has no hot entry
    }
    publishNewSlot(free, IndexSlot.of(tag, 0, address));
    if (firstByteCounts != null) {
      // from the batch's bytes: reading them back from the page costs a restore more
      countFirstByte(bytes, keyOffset, keyLength, valueLength);
    }
    spliceWindowIfNotFull();
    return true;
  }

  /**
   * One probe for a key that a restore would add: the slot to put it in (the first tombstone on its
   * path, else the empty slot that ends the path), or -1 if the key is present (live or expired:
   * either needs a put) or the table has no free slot.
   */
  private int freeSlotIfAbsent(int tag, byte[] key, int keyOffset, int keyLength) {
    long[] t = table;
    int capacity = t.length;
    int i = IndexSlot.home(tag, capacity);
    int tombstone = -1;
    for (int probes = 0; probes < capacity; probes++) {
      long slot = t[i];
      if (slot == IndexSlot.EMPTY) {
        return tombstone >= 0 ? tombstone : i;
      }
      if (slot == IndexSlot.TOMBSTONE) {
        tombstone = tombstone >= 0 ? tombstone : i;
      } else if (IndexSlot.tagOf(slot) == tag && keyMatchesAt(slot, key, keyOffset, keyLength)) {
        return -1;
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return tombstone;
  }

  private boolean keyMatchesAt(long slot, byte[] key, int keyOffset, int keyLength) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    return EntryLayout.keyLength(lengths) == keyLength
        && EntryLayout.keyEquals(
            page.memory,
            EntryLayout.keyOffset(offset, lengths, expires),
            key,
            keyOffset,
            keyLength);
  }

  /**
   * Publishes a new key's slot at {@code i}, found free by {@link #freeSlotIfAbsent}; the caller
   * counts its first byte.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate") // under the write lock, as insertSlot
  private void publishNewSlot(int i, long slot) {
    long[] t = table;
    if (t[i] == IndexSlot.TOMBSTONE) {
      tombstones--;
    }
    SLOTS.setRelease(t, i, slot);
    size++;
  }

  private WriteResult put(
      byte[] key,
      int keyLength,
      byte[] value,
      int valueLength,
      long hash,
      PutMode mode,
      byte[] expected,
      boolean wantPrevious,
      long now,
      BooleanSupplier superseded,
      HotValue replacement) {
    long entrySize = checkedSize(keyLength, valueLength);
    long stamp = lock.writeLock();
    try {
      if (closed) {
        return successor(hash)
            .put(
                key,
                keyLength,
                value,
                valueLength,
                hash,
                mode,
                expected,
                wantPrevious,
                now,
                superseded,
                replacement);
      }
      nowForSweep = expires ? now : Long.MIN_VALUE;
      int tag = IndexSlot.tag(hash);
      if (settings.budgetBytes() != Long.MAX_VALUE) {
        checkFits(entrySize, tag, key, keyLength, now);
      }
      int i = liveIndexOf(tag, key, keyLength, now);
      byte[] previous = null;
      if (i >= 0
          && (wantPrevious
              || settings.collects(RemovalCause.REPLACED)
              || mode == PutMode.IF_EQUALS)) {
        previous = copyValue(table[i]);
      }
      if (!applies(mode, i >= 0, previous, expected)) {
        return result(false, mode == PutMode.IF_ABSENT || wantPrevious ? previous : null);
      }
      if (superseded != null && superseded.getAsBoolean()) {
        return result(false, null);
      }
      int clock = i >= 0 ? Math.min(IndexSlot.MAX_CLOCK, IndexSlot.clock(table[i]) + 1) : 0;
      if (i < 0) {
        policy.onInsert(hash);
        adaptPolicy();
        makeRoomForNewKey();
      }
      // An update counts as an access where the entry is: its new bytes go to the head of
      // its own queue (as Caffeine moves an updated node within its queue), so that a hot
      // entry in main or protected does not fall back into the window and its admission test.
      PageQueue queue = i >= 0 ? queueOf(table[i]) : window;
      // Making room may consume the updated entry's own old bytes at a queue tail: that is its
      // replacement, not an eviction (see removeAt).
      updatingSlot = i;
      long[] tableBefore = table;
      long address = append(queue, (int) entrySize, true);
      updatingSlot = -1;
      if (address < 0) {
        // checkFits made sure that evicting everything leaves room: not reached
        throw new IllegalStateException(
            "no room for an entry of "
                + entrySize
                + " bytes after "
                + "evicting; the segment's bound is "
                + settings.budgetBytes()
                + " bytes");
      }
      Page page = pages.page(IndexSlot.page(address));
      long deadline = expires ? saturatingAdd(now, settings.lifetimeNanos()) : 0;
      EntryLayout.write(
          page.memory,
          IndexSlot.offset(address),
          key,
          keyLength,
          value,
          valueLength,
          expires,
          deadline);
      account(page, queue, (int) entrySize);
      // Making room may have removed the updated key's slot (its old bytes consumed at a queue
      // tail) or replaced the table (a rehash, a clear); a relocation rewrites the slot where it
      // is, and no key is stored under this lock but this write. So the slot found before is
      // still the key's unless the table changed or the slot became a tombstone: only then does
      // an update probe again. A new key is still absent, and a second probe would only miss.
      @SuppressWarnings("ReferenceEquality") // the same array, not equal contents
      boolean sameTable = table == tableBefore;
      if (i >= 0 && (!sameTable || table[i] == IndexSlot.TOMBSTONE)) {
        i = liveIndexOf(tag, key, keyLength, now);
      }
      // The hot entry goes before the new value is published, and its replacement comes after:
      // a reader finds the old value in the tier only while the compact entry still holds it.
      HotEntry hotBefore = hot == null ? null : hot.remove(hash);
      if (i >= 0) {
        long replaced = table[i];
        countReplacement(replaced, key, keyLength, value, valueLength);
        killEntry(replaced, RemovalCause.REPLACED, previous, key, keyLength);
        SLOTS.setRelease(table, i, IndexSlot.of(tag, clock, address));
      } else {
        insertSlot(IndexSlot.of(tag, clock, address));
      }
      if (hotBefore != null && replacement != null) {
        hot.replace(
            hotBefore, replacement.key(), replacement.value(), deadline, replacement.bytes());
      }
      spliceWindowIfNotFull();
      compactIfWasteful();
      return result(true, wantPrevious ? previous : null);
    } finally {
      updatingSlot = -1;
      holdPageSize = false;
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Removes a key.
   *
   * @param expected if non-null, remove only if the value bytes equal these
   * @param wantPrevious copy the removed value into the result
   * @return whether removed, and the removed value if asked for
   */
  public WriteResult remove(
      byte[] key, int keyLength, long hash, byte[] expected, boolean wantPrevious, long now) {
    long stamp = lock.writeLock();
    try {
      if (closed) {
        return successor(hash).remove(key, keyLength, hash, expected, wantPrevious, now);
      }
      nowForSweep = expires ? now : Long.MIN_VALUE;
      int i = liveIndexOf(IndexSlot.tag(hash), key, keyLength, now);
      if (i < 0) {
        return result(false, null);
      }
      byte[] previous =
          wantPrevious || expected != null || settings.collects(RemovalCause.EXPLICIT)
              ? copyValue(table[i])
              : null;
      if (expected != null && !java.util.Arrays.equals(previous, expected)) {
        return result(false, null);
      }
      long slot = table[i];
      if (hot != null) {
        hot.remove(hash);
      }
      deleteSlot(i);
      killEntry(slot, RemovalCause.EXPLICIT, previous, key, keyLength);
      compactIfWasteful();
      return result(true, wantPrevious ? previous : null);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Returns once the write that holds this segment's lock, if any, has finished: what a lock-free
   * read after this sees includes that write (for a caller that must not miss a store already
   * decided, such as a load's).
   */
  public void awaitWriters() {
    lock.unlockRead(lock.readLock());
    Segment[] next = successors;
    if (next != null) {
      for (Segment segment : next) {
        segment.awaitWriters();
      }
    }
  }

  /** The queue holding a live entry's bytes (the window if its page has none). */
  private PageQueue queueOf(long slot) {
    Page page = pages.page(IndexSlot.page(IndexSlot.address(slot)));
    return page != null && page.queue != null ? page.queue : window;
  }

  private static boolean applies(PutMode mode, boolean present, byte[] previous, byte[] expected) {
    return switch (mode) {
      case ALWAYS -> true;
      case IF_ABSENT -> !present;
      case IF_PRESENT -> present;
      case IF_EQUALS -> present && java.util.Arrays.equals(previous, expected);
    };
  }

  /**
   * Refuses, before anything is evicted, an entry that would not fit even with every other entry
   * evicted and every pooled page freed, naming the largest entry that would. What stays then is
   * the index (grown first if a new key needs it), the policy's tables, the segment's own objects
   * and the page of slack kept for relocations; the entry needs a page of its own size, or a
   * standard page. The standard page size could grow while the write evicts (see {@link
   * PageSizing}, at most to 1/{@value PageSizing#MIN_PAGES} of the budget) and take more slack: for
   * an entry so large that this would matter, it is held for this write.
   */
  private void checkFits(long entrySize, int tag, byte[] key, int keyLength, long now) {
    boolean update = refuseIfTooLarge(entrySize, tag, key, keyLength, now);
    int most =
        (int)
            Math.max(
                pages.standardSize,
                Math.min(PageSizing.MAX_PAGE, settings.budgetBytes() / PageSizing.MIN_PAGES));
    holdPageSize = entrySize > largestEntry(most, update);
  }

  /**
   * Refuses, as {@link #put} would and without writing anything, an entry that can never fit: for a
   * caller that must know before it writes at all (putAll). Concurrent writes can change the limit
   * a little (the index grows) before the entry is written.
   *
   * @throws IllegalArgumentException naming the largest entry the segment takes
   */
  public void checkFits(byte[] key, int keyLength, int valueLength, long hash, long now) {
    long entrySize = checkedSize(keyLength, valueLength);
    if (settings.budgetBytes() == Long.MAX_VALUE) {
      return;
    }
    long stamp = lock.readLock();
    try {
      if (closed) {
        successor(hash).checkFits(key, keyLength, valueLength, hash, now);
        return;
      }
      refuseIfTooLarge(entrySize, IndexSlot.tag(hash), key, keyLength, now);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  private long checkedSize(int keyLength, int valueLength) {
    long entrySize = EntryLayout.size(keyLength, valueLength, expires);
    if (entrySize > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("an entry of " + entrySize + " bytes is too large");
    }
    return entrySize;
  }

  /**
   * The test of {@link #checkFits}, under the lock.
   *
   * @return whether the key is present (an update), where the test needed to know; else false
   */
  private boolean refuseIfTooLarge(long entrySize, int tag, byte[] key, int keyLength, long now) {
    int current = pages.standardSize;
    boolean update = false;
    long largest = largestEntry(current, false);
    if (entrySize > largest) {
      // Only so large an entry pays for a second probe: an update needs no index growth.
      int i = probe(table, tag, key, keyLength);
      update = i >= 0 && !(expires && isExpired(deadlineOf(table[i]), now));
      largest = update ? largestEntry(current, true) : largest;
    }
    if (entrySize > largest) {
      throw new IllegalArgumentException(
          "an entry of "
              + entrySize
              + " bytes can never fit:"
              + " the largest this cache takes is "
              + largest
              + " bytes of header, key and value ("
              + settings.budgetBytes()
              + " bytes a segment, less its index, policy tables and a"
              + " page kept free for eviction)");
    }
    return update;
  }

  /**
   * Returns the largest entry that fits once every other one is evicted, or 0 if none does.
   *
   * @param standard standard page size to assume
   * @param update true if the key is present (its index needs no room)
   */
  private long largestEntry(int standard, boolean update) {
    int capacity = update ? table.length : indexCapacityForOneMore();
    long fixed =
        FIXED_OVERHEAD
            + 8L * capacity
            + policy.bytes()
            + (capacity > table.length ? sketchGrowth(capacity) : 0);
    long room =
        settings.budgetBytes() - fixed - pages.footprint(standard) - PageMemory.PAGE_OVERHEAD;
    return room >= standard ? room : 0;
  }

  /** Index of the live slot for the key, removing it first if it has expired; else -1. */
  private int liveIndexOf(int tag, byte[] key, int keyLength, long now) {
    int i = probe(table, tag, key, keyLength);
    if (i >= 0 && expires && isExpired(deadlineOf(table[i]), now)) {
      removeAt(i, RemovalCause.EXPIRED);
      return -1;
    }
    return i;
  }

  /** A call that did nothing and looked at nothing: no lock taken, nothing collected. */
  private static final WriteResult NOTHING_DONE = new WriteResult(false, null, List.of(), 0, 0, 0);

  /** A write applied that returned, removed and counted nothing. */
  private static final WriteResult APPLIED = new WriteResult(true, null, List.of(), 0, 0, 0);

  /** A write not applied that returned, removed and counted nothing. */
  private static final WriteResult NOT_APPLIED = new WriteResult(false, null, List.of(), 0, 0, 0);

  /** Hands over what this call collected (removals, counts) and resets it; under the lock. */
  private WriteResult result(boolean applied, byte[] previous) {
    return result(applied, previous, 0);
  }

  private WriteResult result(boolean applied, byte[] previous, int cleared) {
    assert lock.isWriteLocked() : "result() outside the write lock races with the writer";
    List<RemovedEntry> removed = removals;
    if (previous == null && removed.isEmpty() && (evictions | expirations | cleared) == 0) {
      // the common outcomes, shared rather than allocated for every write (WriteResult is a
      // record: no caller tells them apart by identity)
      return applied ? APPLIED : NOT_APPLIED;
    }
    removals = List.of();
    WriteResult r = new WriteResult(applied, previous, removed, evictions, expirations, cleared);
    evictions = 0;
    expirations = 0;
    return r;
  }

  // ------------------------------------------------------------------ index

  private int find(int tag, long address) {
    long[] t = table;
    int capacity = t.length;
    int i = IndexSlot.home(tag, capacity);
    for (int probes = 0; probes < capacity; probes++) {
      long slot = t[i];
      if (slot == IndexSlot.EMPTY) {
        return -1;
      }
      if (IndexSlot.address(slot) == address) {
        return i;
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
    return -1;
  }

  /**
   * Puts a slot for a key known to be absent, reusing the first tombstone on its path. Under the
   * write lock: {@code size} has one writer at a time and is volatile for lock-free readers.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private void insertSlot(long slot) {
    long[] t = table;
    int capacity = t.length;
    int i = IndexSlot.home(IndexSlot.tagOf(slot), capacity);
    while (t[i] != IndexSlot.EMPTY && t[i] != IndexSlot.TOMBSTONE) {
      i = i + 1 == capacity ? 0 : i + 1;
    }
    if (t[i] == IndexSlot.TOMBSTONE) {
      tombstones--;
    }
    SLOTS.setRelease(t, i, slot);
    size++;
    countFirstByte(slot, 1);
  }

  /**
   * Deletes by leaving a tombstone. Slots never move while a key is present (only a resize replaces
   * the whole table), which is what lets readers probe without any lock: a reader can never miss a
   * present key because a deletion shifted it past the reader's position. Under the write lock, as
   * {@link #insertSlot} is.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private void deleteSlot(int i) {
    countFirstByte(table[i], -1);
    SLOTS.setRelease(table, i, IndexSlot.TOMBSTONE);
    tombstones++;
    size--;
  }

  /**
   * Counts the live entry of {@code slot} in, or out, of its key's first-byte group, if the segment
   * counts them; under the write lock, with the entry's bytes still in its page.
   */
  private void countFirstByte(long slot, int delta) {
    int[] counts = firstByteCounts;
    if (counts == null) {
      return;
    }
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    int keyLength = EntryLayout.keyLength(lengths);
    int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
    int group =
        keyLength == 0
            ? FIRST_BYTE_GROUPS - 1
            : page.memory.get(ValueLayout.JAVA_BYTE, keyOffset) & 0xFF;
    counts[group] += delta;
    if (valueMark != 0
        && EntryLayout.valueLength(lengths) > 0
        && (page.memory.get(ValueLayout.JAVA_BYTE, keyOffset + keyLength) & valueMark) != 0) {
      counts[FIRST_BYTE_GROUPS + group] += delta;
    }
  }

  /**
   * Moves a replaced entry's count to its replacement, the same key with {@code value}: the key's
   * first-byte group is unchanged, so only its count of marked values can move. Under the write
   * lock, with the replaced entry's bytes still in its page.
   */
  private void countReplacement(
      long replaced, byte[] key, int keyLength, byte[] value, int valueLength) {
    int[] counts = firstByteCounts;
    if (counts == null || valueMark == 0) {
      return;
    }
    long address = IndexSlot.address(replaced);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
    boolean wasMarked =
        EntryLayout.valueLength(lengths) > 0
            && (page.memory.get(ValueLayout.JAVA_BYTE, keyOffset + keyLength) & valueMark) != 0;
    boolean isMarked = valueLength > 0 && (value[0] & valueMark) != 0;
    if (wasMarked != isMarked) {
      int group = keyLength == 0 ? FIRST_BYTE_GROUPS - 1 : key[0] & 0xFF;
      counts[FIRST_BYTE_GROUPS + group] += isMarked ? 1 : -1;
    }
  }

  /**
   * Counts a new entry, whose key ({@code keyLength} bytes at {@code keyOffset}) and value lie in
   * {@code bytes} as a bulk restore's batch holds them, into its key's first-byte group; under the
   * write lock, on a segment that counts them.
   */
  private void countFirstByte(byte[] bytes, int keyOffset, int keyLength, int valueLength) {
    int[] counts = firstByteCounts;
    int group = keyLength == 0 ? FIRST_BYTE_GROUPS - 1 : bytes[keyOffset] & 0xFF;
    counts[group]++;
    if (valueLength > 0 && (bytes[keyOffset + keyLength] & valueMark) != 0) {
      counts[FIRST_BYTE_GROUPS + group]++;
    }
  }

  /**
   * Makes the segment count its live entries by the first byte of their encoded key, for {@link
   * #keysStartingWith}, and among them those whose value's first byte has a bit of {@code
   * valueMark}, for {@link #markedKeysStartingWith}. Called once, before the segment is shared with
   * other threads (it is then published with the routes that reach it) and before its first write.
   *
   * @param valueMark bits of a value's first byte (0 to 255; 0 counts no value as marked)
   */
  public void countKeysByFirstByte(int valueMark) {
    this.valueMark = valueMark & 0xFF;
    firstByteCounts = new int[2 * FIRST_BYTE_GROUPS];
  }

  /**
   * Returns the live entries counted by {@link #keysStartingWith} whose value's first byte has a
   * bit of the mark given to {@link #countKeysByFirstByte}; the same contract otherwise.
   *
   * @param group the first byte's unsigned value, or 256 for the empty key
   * @throws IllegalStateException if the segment does not count them
   */
  public int markedKeysStartingWith(int group) {
    return counted(FIRST_BYTE_GROUPS + group);
  }

  /**
   * Returns the live entries whose encoded key starts with {@code group} (0 to 255), or whose key
   * is empty ({@code group} 256), as they stood under the lock at one moment: entries expired but
   * not yet removed are counted, as {@link #size} counts them. 0 once the segment is closed (a
   * split one's successors hold its entries).
   *
   * @param group the first byte's unsigned value, or 256 for the empty key
   * @throws IllegalStateException if the segment does not count them
   */
  public int keysStartingWith(int group) {
    return counted(group);
  }

  private int counted(int group) {
    int[] counts = firstByteCounts;
    if (counts == null) {
      throw new IllegalStateException("this cache does not count keys by their first byte");
    }
    long stamp = lock.tryOptimisticRead();
    int count = counts[group];
    if (lock.validate(stamp)) {
      return count;
    }
    stamp = lock.readLock();
    try {
      return counts[group];
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Forgets every entry's first-byte count (the segment was emptied); under the write lock. */
  private void resetFirstByteCounts() {
    int[] counts = firstByteCounts;
    if (counts != null) {
      java.util.Arrays.fill(counts, 0);
    }
  }

  /**
   * Grows the index so one more entry keeps the load at or below 0.85. Growing by 1.2x rather than
   * doubling keeps the load between 0.71 and 0.85, so the index costs about 10 bytes an entry
   * instead of 8 to 21 with power-of-two tables.
   *
   * @param mayEvict whether entries may be evicted for the larger index (pooled pages always may be
   *     released); a bulk restore's entry may not, and is put instead
   * @return false if the index cannot grow
   */
  private boolean ensureIndexRoom(boolean mayEvict) {
    long[] t = table;
    if ((size + tombstones + 1) * 20L <= t.length * 17L) {
      return true;
    }
    if ((size + 1) * 20L <= t.length * 15L) {
      // Mostly tombstones: rebuild at the same size, which costs no memory.
      rehash(t.length);
      return true;
    }
    if (t.length >= IndexSlot.MAX_CAPACITY) {
      return false;
    }
    int grown = indexCapacityForOneMore();
    long extra = 8L * (grown - t.length) + sketchGrowth(grown);
    if (!reserve(extra, mayEvict)) {
      return false;
    }
    rehash(grown);
    return true;
  }

  /**
   * Sizes the index, and the policy's tables that follow it, for {@code entries} entries at once
   * (at a load of 0.8, inside the 0.71 to 0.85 that growing keeps), so that inserting up to that
   * many rehashes nothing: for a segment about to be filled in one go. Does nothing if the segment
   * holds an entry, its index is that large already, or its bound cannot hold the larger index
   * without evicting; takes at most the segment's entry bound and {@link #MAX_ENTRIES}.
   *
   * @param entries the entries expected, 0 or more
   */
  public void presize(long entries) {
    long stamp = lock.writeLock();
    try {
      if (closed || size != 0) {
        return;
      }
      long expected = Math.min(Math.min(entries, settings.maxEntries()), MAX_ENTRIES);
      int capacity = (int) Math.min(IndexSlot.MAX_CAPACITY, expected * 5 / 4 + 1);
      if (capacity <= table.length) {
        return;
      }
      if (fitsBudget(8L * (capacity - table.length) + sketchGrowth(capacity))) {
        rehash(capacity);
      }
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Returns the index's slots now; racy read, for tests. */
  int indexCapacity() {
    return table.length;
  }

  /** Returns the index's capacity once {@link #ensureIndexRoom} has made room for a new key. */
  private int indexCapacityForOneMore() {
    int capacity = table.length;
    if ((size + tombstones + 1) * 20L <= capacity * 17L
        || (size + 1) * 20L <= capacity * 15L
        || capacity >= IndexSlot.MAX_CAPACITY) {
      return capacity;
    }
    return (int)
        Math.min(IndexSlot.MAX_CAPACITY, Math.max(capacity + MIN_CAPACITY, capacity * 6L / 5));
  }

  /**
   * What an entry-bounded segment's policy tables should describe for an index of {@code capacity}
   * slots: the bound divided by the least power of four that still covers the index. The tables
   * then grow in steps of four, which their growth rule (only when at least twice as large) takes,
   * and end sized for the bound itself, as when allocated at once.
   */
  private int policyTarget(int capacity) {
    int target = policyEntries;
    while (target / 4 >= Math.max(capacity, MIN_CAPACITY)) {
      target /= 4;
    }
    return target;
  }

  /** Returns whether the segment is bounded by bytes (or unbounded), not by entries. */
  private boolean byteBound() {
    return settings.maxEntries() == Long.MAX_VALUE;
  }

  private long sketchGrowth(int capacity) {
    if (!byteBound()) {
      return 0;
    }
    return policy.growthFor(capacity);
  }

  private void rehash(int capacity) {
    long[] old = table;
    long[] grown = new long[capacity];
    for (long slot : old) {
      if (slot != IndexSlot.EMPTY && slot != IndexSlot.TOMBSTONE) {
        int i = IndexSlot.home(IndexSlot.tagOf(slot), capacity);
        while (grown[i] != IndexSlot.EMPTY) {
          i = i + 1 == capacity ? 0 : i + 1;
        }
        grown[i] = slot;
      }
    }
    policy.ensureCapacity(byteBound() ? capacity : policyTarget(capacity));
    tombstones = 0;
    table = grown;
  }

  // ------------------------------------------------------------------ pages and bound

  /**
   * Memory this segment has reserved: pages, index, policy tables and fixed objects, as it stood at
   * one moment, so never more than the budget. The parts change together under the write lock (a
   * write frees pages, then grows the index); added up one by one without it, they could mix a
   * moment before a write with one after and exceed the budget although the segment never held that
   * much. So this takes an optimistic read of the lock, and the read lock if a writer intervened:
   * it may wait for a writer, unlike a lookup. Not for use under the write lock.
   *
   * @return bytes
   */
  public long memoryUsed() {
    long stamp = lock.tryOptimisticRead();
    long used = reservedBytes() + hotBytes();
    if (lock.validate(stamp)) {
      return used;
    }
    stamp = lock.readLock();
    try {
      return reservedBytes() + hotBytes();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Returns bytes counted for the segment's hot entries; racy read outside the lock. */
  public long hotBytes() {
    return hot == null ? 0 : hot.bytes();
  }

  /** Returns entries of the segment's part of the hot tier; racy read outside the lock. */
  public int hotSize() {
    return hot == null ? 0 : hot.size();
  }

  /** Returns what {@link #memoryUsed} reports; exact only under the write lock. */
  private long reservedBytes() {
    return pages.reservedBytes()
        + 8L * table.length
        + policy.bytes()
        + FIXED_OVERHEAD
        + (firstByteCounts == null ? 0 : 16 + 4L * firstByteCounts.length);
  }

  /** Returns bytes of the policy's tables (sketch, ghosts, admission sample); racy read. */
  long policyBytes() {
    return policy.bytes();
  }

  /** Returns bytes of the policy's tables once all are made; for tests. */
  long policyTableBytes() {
    return policy.tableBytes();
  }

  /** Returns live entries; racy read, exact at quiescence. */
  public int size() {
    return size;
  }

  /** Returns bytes of live entries (headers, keys, values); racy read. */
  public long liveBytes() {
    return window.liveBytes + main.liveBytes + protectedQueue.liveBytes;
  }

  private boolean fitsBudget(long extra) {
    return reservedBytes() + extra <= settings.budgetBytes();
  }

  /**
   * Frees memory until {@code extra} more bytes fit the budget, releasing pooled pages first and
   * then, if {@code mayEvict}, evicting; false if it cannot.
   */
  private boolean reserve(long extra, boolean mayEvict) {
    while (!fitsBudget(extra)) {
      if (!pages.releaseOnePooled() && (!mayEvict || !evictStep())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Finds room for {@code bytes} at the head of {@code queue} and claims it.
   *
   * @param forUser true for a user's write, which must leave one standard page of slack for the
   *     policy's relocations; false for a relocation, which may use the slack and never evicts
   * @return the address of the claimed room, or -1 if there is none
   */
  private long append(PageQueue queue, int bytes, boolean forUser) {
    return append(queue, bytes, forUser, forUser);
  }

  /**
   * {@link #append(PageQueue, int, boolean)}, where a user's write may be kept from evicting.
   *
   * @param mayEvict false for a bulk restore's entry, which is put instead where room would need an
   *     eviction; ignored (never evicts) for a relocation
   */
  private long append(PageQueue queue, int bytes, boolean forUser, boolean mayEvict) {
    for (; ; ) {
      Page room = queue.roomFor(bytes);
      if (room != null) {
        return IndexSlot.address(room.number, queue.claim(room, bytes));
      }
      Page page = newPage(bytes, forUser);
      if (page == null) {
        if (!forUser || !mayEvict || !evictStep()) {
          return -1;
        }
        continue;
      }
      queue.appendPage(page);
    }
  }

  private Page newPage(int bytes, boolean forUser) {
    if (!holdPageSize) {
      pages.growStandardSize(
          PageSizing.standardSize(pages.standardSize, pageLiveBytes, size, settings),
          pages.growing() ? pageBytesHeld() : 0);
    }
    int standard = pages.standardSize;
    int slack =
        forUser && settings.budgetBytes() != Long.MAX_VALUE ? (int) pages.footprint(standard) : 0;
    if (bytes <= standard) {
      if (pages.pooledCount() > (slack > 0 && !fitsBudget(slack) ? 1 : 0)) {
        return pages.takePooled();
      }
      if (fitsBudget(pages.footprint(standard) + slack)) {
        return pages.allocate(standard);
      }
      // pooled over-size pages are free room: give them up before anything is evicted
      return pages.releaseOnePooledLarge() ? newPage(bytes, forUser) : null;
    }
    // A pooled over-size page of this size is counted already, and warm. It is taken where a
    // store that freed its pooled pages would allocate this one (pooled over-size bytes count
    // as free room), so that the decisions stay those of such a store.
    if (fitsBudget(pages.footprint(bytes) + slack - pages.pooledLargeBytes())) {
      Page pooledLarge = pages.takePooledLarge(bytes);
      if (pooledLarge != null) {
        return pooledLarge;
      }
    }
    if (fitsBudget(pages.footprint(bytes) + slack)) {
      return pages.allocate(bytes);
    }
    return pages.releaseOnePooled() ? newPage(bytes, forUser) : null;
  }

  private void account(Page page, PageQueue queue, int bytes) {
    page.live += bytes;
    page.liveEntries++;
    queue.addLive(bytes);
    pageLiveBytes += bytes;
  }

  private void unaccount(Page page, int bytes) {
    page.live -= bytes;
    page.liveEntries--;
    page.queue.removeLive(bytes);
    pageLiveBytes -= bytes;
  }

  /** Makes the count bound hold one more entry, and the index have room for it. */
  private void makeRoomForNewKey() {
    while (size >= settings.maxEntries()) {
      if (!evictStep()) {
        break;
      }
    }
    while (!ensureIndexRoom(true)) {
      if (!evictStep()) {
        throw new IllegalStateException(
            "a segment holds at most "
                + MAX_ENTRIES
                + " entries and this one has nothing to evict: give the cache more segments");
      }
    }
  }

  private boolean atBound() {
    if (settings.maxEntries() != Long.MAX_VALUE) {
      return size >= settings.maxEntries();
    }
    if (settings.budgetBytes() == Long.MAX_VALUE) {
      return false;
    }
    // pooled over-size pages are room, as they were when such pages were freed at once
    return !pages.hasPooled()
        && !fitsBudget(2 * pages.footprint(pages.standardSize) - pages.pooledLargeBytes());
  }

  /**
   * Until the segment first reaches its bound, window pages beyond the window's target join the
   * main queue as they are, without copying: there is nothing to evict yet, so no admission
   * decision is due. Once it has been full, a pooled page appearing for a moment does not make it
   * "not full": every window entry then goes through admission.
   */
  private void spliceWindowIfNotFull() {
    if (reachedBound) {
      return;
    }
    long target = policy.windowTarget(capacityUnits());
    while (window.pageCount() > 1
        && window.tailOffset == 0
        && windowUnits() - unitsOf(window.tail()) >= target
        && !atBound()) {
      main.insertBeforeHead(window.removeTail());
    }
  }

  /** Lets the policy size its step and, once a period, move the window target. */
  private void adaptPolicy() {
    boolean counted = settings.maxEntries() != Long.MAX_VALUE;
    long entries = window.liveEntries + main.liveEntries + protectedQueue.liveEntries;
    double bytesPerEntry = entries == 0 ? 1 : (double) liveBytes() / entries;
    policy.adapt(
        capacityUnits(),
        counted ? settings.maxEntries() : entries,
        counted ? bytesPerEntry : 1,
        windowUnits(),
        unitsOf(main) + protectedUnits());
  }

  private long capacityUnits() {
    if (settings.maxEntries() != Long.MAX_VALUE) {
      return settings.maxEntries();
    }
    return settings.budgetBytes() == Long.MAX_VALUE ? Long.MAX_VALUE / 2 : settings.budgetBytes();
  }

  private long windowUnits() {
    return settings.maxEntries() != Long.MAX_VALUE ? window.liveEntries : window.liveBytes;
  }

  private long unitsOf(Page page) {
    return settings.maxEntries() != Long.MAX_VALUE ? page.liveEntries : page.live;
  }

  // ------------------------------------------------------------------ hot tier

  /**
   * The slot's access counter, as the policy should see it. Hits in the hot tier touch neither the
   * slot nor the sketch (that would cost a hot read two shared writes); the tier counts them on its
   * entry, and here, when the queue's tail reaches the compact entry, they are told to the policy
   * as the reads they were: the counter raised by as many (up to its ceiling) and the key counted
   * in the sketch once for each.
   */
  private int clockOf(long slot, long hash) {
    int clock = IndexSlot.clock(slot);
    if (hot == null || hot.isEmpty()) {
      return clock;
    }
    int hits = hot.takeHits(hash);
    if (hits == 0) {
      return clock;
    }
    policy.onTierHits(hash, hits);
    return Math.min(IndexSlot.MAX_CLOCK, clock + hits);
  }

  /** Returns the store hash of the key of the entry {@code slot} points to; under the lock. */
  private long hashOf(long slot) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    return KeyHash.hash(
        page.memory,
        EntryLayout.keyOffset(offset, lengths, expires),
        EntryLayout.keyLength(lengths));
  }

  /**
   * Whether a value just read for {@code hash} is worth offering to the hot tier: the tier has
   * room, or its key's count in the sketch reaches the tier's bar. Lock-free and racy; once the
   * tier is full, most reads stop here.
   *
   * @param hash the key's store hash
   * @return true if {@link #offerHot} should be called
   */
  public boolean hotCandidate(long hash) {
    HotShard shard = hot;
    if (shard == null) {
      return false;
    }
    int halvings = sketch.halvings();
    return shard.seemsRoomy(halvings) || sketch.frequency(hash) >= shard.bar(halvings);
  }

  /**
   * Offers a decoded value to the hot tier, if the segment's lock is free at once (a reader never
   * waits): it enters only if the key's compact entry still holds exactly the bytes the value was
   * decoded from, so that the tier never holds a value older than the store's, and if the tier's
   * admission takes it.
   *
   * @param key encoded key
   * @param keyLength its length
   * @param hash its store hash
   * @param value the value bytes the object was decoded from
   * @param keyObject the key as readers will look it up
   * @param valueObject the decoded value
   * @param bytes the retained size of key and value objects ({@link RetainedSize})
   * @param now ticker time, used only if entries expire
   */
  public void offerHot(
      byte[] key,
      int keyLength,
      long hash,
      byte[] value,
      Object keyObject,
      Object valueObject,
      long bytes,
      long now) {
    if (hot == null) {
      return;
    }
    long stamp = lock.tryWriteLock();
    if (stamp == 0) {
      return;
    }
    try {
      if (closed) {
        return;
      }
      int i = probe(table, IndexSlot.tag(hash), key, keyLength);
      if (i < 0) {
        return;
      }
      long slot = table[i];
      long address = IndexSlot.address(slot);
      Page page = pages.page(IndexSlot.page(address));
      int offset = IndexSlot.offset(address);
      long lengths = EntryLayout.readLengths(page.memory, offset);
      long deadline = expires ? EntryLayout.deadline(page.memory, offset, lengths) : 0;
      int valueOffset = EntryLayout.keyOffset(offset, lengths, expires) + keyLength;
      if (EntryLayout.valueLength(lengths) != value.length
          || !EntryLayout.valueEquals(page.memory, valueOffset, value, value.length)
          || (expires && isExpired(deadline, now))) {
        return;
      }
      hot.offer(keyObject, valueObject, hash, deadline, bytes, sketch.frequency(hash), sketch);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  // ------------------------------------------------------------------ eviction

  /**
   * Consumes one entry (or one exhausted page) at a queue tail.
   *
   * @return false if both queues are empty
   */
  private boolean evictStep() {
    reachedBound = true;
    boolean mainEmpty = main.isEmpty() && protectedQueue.isEmpty();
    PageQueue queue =
        windowUnits() > policy.windowTarget(capacityUnits()) || mainEmpty ? window : main;
    if (queue.isEmpty() && queue == window) {
      if (mainEmpty) {
        return false;
      }
      queue = main;
    }
    if (queue == main) {
      int before = size;
      demoteProtected();
      if (main.isEmpty()) {
        // demotion could not relocate and evicted instead, or main had nothing to offer
        if (window.isEmpty()) {
          return size < before;
        }
        queue = window;
      }
    }
    Page tail = queue.tail();
    if (queue.tailOffset >= tail.used) {
      queue.removeTail();
      pages.recycle(tail);
      return true;
    }
    consumeTailEntry(queue, tail);
    return true;
  }

  private void consumeTailEntry(PageQueue queue, Page tail) {
    int offset = queue.tailOffset;
    long lengths = EntryLayout.readLengths(tail.memory, offset);
    int bytes = EntryLayout.entrySize(lengths, expires);
    queue.tailOffset = offset + bytes;
    long address = IndexSlot.address(tail.number, offset);
    int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
    long hash = KeyHash.hash(tail.memory, keyOffset, EntryLayout.keyLength(lengths));
    int i = find(IndexSlot.tag(hash), address);
    if (i < 0) {
      return;
    }
    long slot = table[i];
    if (expires && isExpired(EntryLayout.deadline(tail.memory, offset, lengths), nowForSweep)) {
      removeAt(i, RemovalCause.EXPIRED);
    } else if (queue == window) {
      boolean admit = mainHasRoomFor();
      if (!admit) {
        long victim = peekMainVictim();
        admit = policy.admit(hash, clockOf(slot, hash), victim, victim != NO_VICTIM);
      }
      if (!admit) {
        policy.onRejected(hash);
      }
      decide(i, slot, admit ? 0 : -1, bytes);
    } else if (policy.promote(clockOf(slot, hash))) {
      policy.onPromoted(hash);
      if (!relocate(i, slot, 0, bytes, protectedQueue)) {
        removeAt(i, RemovalCause.SIZE);
      }
    } else {
      policy.onEvicted(hash);
      removeAt(i, RemovalCause.SIZE);
    }
  }

  /**
   * Keeps the protected queue within its share of main: its tail entries get another round at its
   * head if read since their last round (counter decremented), else go back to main's head, where
   * they must be read again before they reach main's tail or be evicted. Also empties protected
   * into main when main has no live entry left, so that main's tail always has an entry to offer
   * when the protected queue holds any.
   */
  private void demoteProtected() {
    while (!protectedQueue.isEmpty()
        && (main.liveEntries == 0
            || protectedUnits() > policy.protectedTarget(unitsOf(main) + protectedUnits()))) {
      Page tail = protectedQueue.tail();
      if (protectedQueue.tailOffset >= tail.used) {
        protectedQueue.removeTail();
        pages.recycle(tail);
        continue;
      }
      int offset = protectedQueue.tailOffset;
      long lengths = EntryLayout.readLengths(tail.memory, offset);
      int bytes = EntryLayout.entrySize(lengths, expires);
      protectedQueue.tailOffset = offset + bytes;
      int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
      long hash = KeyHash.hash(tail.memory, keyOffset, EntryLayout.keyLength(lengths));
      int i = find(IndexSlot.tag(hash), IndexSlot.address(tail.number, offset));
      if (i < 0) {
        continue;
      }
      long slot = table[i];
      int clock = clockOf(slot, hash);
      boolean moved =
          clock > 0
              ? relocate(i, slot, clock - 1, bytes, protectedQueue)
              : relocate(i, slot, 0, bytes, main);
      if (!moved) {
        removeAt(i, RemovalCause.SIZE);
      }
    }
  }

  private long protectedUnits() {
    return unitsOf(protectedQueue);
  }

  /** Returns the live entries (entry bound) or live bytes (byte bound) of {@code queue}. */
  private long unitsOf(PageQueue queue) {
    return settings.maxEntries() != Long.MAX_VALUE ? queue.liveEntries : queue.liveBytes;
  }

  /**
   * True if main holds fewer entries than its share of an entry bound (the bound less the window's
   * target), as while the segment first fills with entries much smaller than a page (page splicing
   * cannot keep the window at its target then) or after the window's target shrank: the candidate
   * then joins main without an admission contest. Byte bounds rely on splicing alone: their pages
   * are a small share of the bound, and the live bytes that fit are not known exactly enough to
   * call main "not full".
   */
  private boolean mainHasRoomFor() {
    long capacity = settings.maxEntries();
    // called while making room for a new entry: main's share must hold the candidate and still
    // leave a place, or a full segment would never weigh a candidate at all
    return capacity != Long.MAX_VALUE
        && main.liveEntries + protectedQueue.liveEntries + 2
            <= capacity - policy.windowTarget(capacity);
  }

  private static final long NO_VICTIM = Long.MIN_VALUE;

  /** Time used when eviction meets an expired entry; set by callers that know the time. */
  private long nowForSweep = Long.MIN_VALUE;

  /** Relocates the entry to the main queue's head with {@code clock}, or evicts if -1. */
  private void decide(int i, long slot, int clock, int bytes) {
    if (clock >= 0 && relocate(i, slot, clock, bytes, main)) {
      return;
    }
    removeAt(i, RemovalCause.SIZE);
  }

  /** Copies the entry to {@code queue}'s head with {@code clock}; false if there is no room. */
  private boolean relocate(int i, long slot, int clock, int bytes, PageQueue queue) {
    long from = IndexSlot.address(slot);
    Page source = pages.page(IndexSlot.page(from));
    long to = append(queue, bytes, false);
    if (to < 0) {
      return false;
    }
    Page target = pages.page(IndexSlot.page(to));
    EntryLayout.copy(
        source.memory, IndexSlot.offset(from), target.memory, IndexSlot.offset(to), bytes);
    unaccount(source, bytes);
    account(target, queue, bytes);
    SLOTS.setRelease(table, i, IndexSlot.of(IndexSlot.tagOf(slot), clock, to));
    return true;
  }

  /**
   * Hash of the main queue's next victim, or NO_VICTIM: the first live entry at the tail whose
   * access counter is zero. Entries on the way with a counter above zero get their next round now,
   * as main-tail processing would give it, so that a candidate is only ever weighed against an
   * entry that would really be evicted (as W-TinyLFU weighs it against probation's least recently
   * used entry). Bounded: at most one lap of the queue, after which a counter may still be above
   * zero only where a reader raised it meanwhile.
   */
  private long peekMainVictim() {
    demoteProtected();
    long budget = main.liveEntries + 1;
    for (; ; ) {
      long hash = peekMainTail();
      if (hash == NO_VICTIM || budget-- <= 0) {
        return hash;
      }
      Page tail = main.tail();
      int offset = main.tailOffset;
      int i = find(IndexSlot.tag(hash), IndexSlot.address(tail.number, offset));
      long slot = table[i];
      int clock = clockOf(slot, hash);
      if (clock == 0 || (expires && isExpired(deadlineOf(slot), nowForSweep))) {
        return hash;
      }
      int bytes = EntryLayout.entrySize(EntryLayout.readLengths(tail.memory, offset), expires);
      main.tailOffset = offset + bytes;
      policy.onPromoted(hash);
      if (!relocate(i, slot, 0, bytes, protectedQueue)) {
        main.tailOffset = offset;
        return hash;
      }
    }
  }

  /** Hash of the main queue's tail live entry (skipping dead entries), or NO_VICTIM. */
  private long peekMainTail() {
    while (!main.isEmpty()) {
      Page tail = main.tail();
      if (main.tailOffset >= tail.used) {
        if (tail == main.head()) {
          return NO_VICTIM;
        }
        main.removeTail();
        pages.recycle(tail);
        continue;
      }
      int offset = main.tailOffset;
      long lengths = EntryLayout.readLengths(tail.memory, offset);
      int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
      long hash = KeyHash.hash(tail.memory, keyOffset, EntryLayout.keyLength(lengths));
      if (find(IndexSlot.tag(hash), IndexSlot.address(tail.number, offset)) >= 0) {
        return hash;
      }
      main.tailOffset = offset + EntryLayout.entrySize(lengths, expires);
    }
    return NO_VICTIM;
  }

  /**
   * Removes the entry at slot {@code i} for {@code cause}, keeping its bytes if wanted. The entry
   * of a key being updated is removed as REPLACED whatever the cause: the update stores the key's
   * new value, so its listeners hear of one replacement and no eviction, and the policy's view (the
   * old bytes consumed at a tail) stays as it is.
   */
  private void removeAt(int i, RemovalCause reason) {
    RemovalCause cause = i == updatingSlot ? RemovalCause.REPLACED : reason;
    long slot = table[i];
    byte[] value = settings.collects(cause) ? copyValue(slot) : null;
    if (hot != null && !hot.isEmpty()) {
      hot.remove(hashOf(slot));
    }
    deleteSlot(i);
    killEntry(slot, cause, value, null, 0);
    if (cause == RemovalCause.SIZE) {
      evictions++;
    } else if (cause == RemovalCause.EXPIRED) {
      expirations++;
    }
  }

  /** Marks an entry's bytes dead and records the removal for listeners. */
  private void killEntry(long slot, RemovalCause cause, byte[] value, byte[] key, int keyLength) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    if (settings.collects(cause)) {
      byte[] k = key != null ? java.util.Arrays.copyOf(key, keyLength) : copyKey(slot);
      if (removals.isEmpty()) {
        removals = new ArrayList<>(2);
      }
      removals.add(new RemovedEntry(k, value != null ? value : copyValue(slot), cause));
    }
    unaccount(page, EntryLayout.entrySize(lengths, expires));
  }

  /**
   * Copies live entries out of the sparsest page when dead bytes exceed a sixteenth of the pages'
   * bytes and a standard page, and that page is at most half live (at most 80% once dead entries
   * are a quarter of what the pages hold, or near the budget), so that updates and removals cannot
   * leave the segment full of garbage and compaction copies no more than it frees while the waste
   * is moderate. Pooled pages are neither dead nor pages in use: they hold nothing, and counted as
   * dead they started scans that found no page sparse enough and then held the next scan back. One
   * standard page, not several: the standard size is about a quarter of what a growing segment
   * holds, so waiting for four pages' worth let the dead bytes equal the contents; a full segment
   * holds at least 64 pages, where the sixteenth governs.
   */
  private void compactIfWasteful() {
    long pageBytes = pages.reservedBytes() - pages.pooledBytes();
    long dead = pageBytes - pageLiveBytes;
    if (dead * 16 <= pageBytes
        || dead < pages.standardSize
        || dead < deadAtFruitlessScan + pages.standardSize) {
      return;
    }
    // Near the budget, dead bytes would cost live entries their place: see sparsestFullPage.
    Page sparse = sparsestFullPage(reservedBytes() / 3 >= settings.budgetBytes() / 4);
    if (sparse != null) {
      evacuate(sparse);
      deadAtFruitlessScan = 0;
    } else {
      // No page is sparse enough: scan again only once another page's worth has died.
      deadAtFruitlessScan = dead;
    }
  }

  /**
   * Returns what the pages reserve less pooled pages and dead entries: live entries, the room not
   * yet written and the ends pages lost. What the standard size follows; a walk of the pages, so
   * asked only while the size may grow (a segment of a few pages of its current size).
   */
  private long pageBytesHeld() {
    long dead = 0;
    for (PageQueue queue : new PageQueue[] {window, main, protectedQueue}) {
      for (Page page : queue.pages()) {
        dead += page.used - page.live;
      }
    }
    return pages.reservedBytes() - pages.pooledBytes() - dead;
  }

  /**
   * Returns the closed page with the fewest live bytes among those at most 80% live, or null; a
   * page more than half live only if {@code tight} or a quarter of what the pages hold is dead
   * entries.
   *
   * <p>Among those: a page holding one entry of its own size (an over-size entry, or one written
   * while the pages were smaller) is always whole, and taken as the candidate it hid every sparse
   * page behind it, so a segment whose entries grew past its first pages stopped compacting (a
   * large sorted set's segments held 5-15% live in pages of 64-128 KiB).
   *
   * <p>Half live: below a quarter dead, each byte compaction copies frees at least one. Taking
   * every page up to 80% live held about a tenth of the pages dead under uniform overwrites of 1
   * KiB values (redis-benchmark's SET) but copied 3.8 bytes for each byte written, and server CPU
   * per SET rose 1.4x. Dead entries, not the pages' unwritten room, decide: a segment of a few
   * large pages would otherwise always count as a quarter dead.
   *
   * @param tight whether to take pages up to 80% live whatever the dead entries (near the budget,
   *     where dead bytes would cost live entries their place)
   */
  private Page sparsestFullPage(boolean tight) {
    Page best = null;
    long used = 0;
    long deadEntries = 0;
    for (PageQueue queue : new PageQueue[] {window, main, protectedQueue}) {
      for (Page page : queue.pages()) {
        used += page.used;
        deadEntries += page.used - page.live;
        boolean consuming = page == queue.tail() && queue.tailOffset > 0;
        boolean open = page == queue.head() || page == queue.spare();
        if (!open
            && !consuming
            && page.live * 5L < page.capacity * 4L
            && (best == null || page.live < best.live)) {
          best = page;
        }
      }
    }
    if (best == null || tight || deadEntries * 4 >= used || best.live * 2L < best.capacity) {
      return best;
    }
    return null;
  }

  /** Returns the live bytes of the pages compaction has evacuated (what it copied); for tests. */
  long evacuatedBytes() {
    return evacuatedBytes;
  }

  private void evacuate(Page page) {
    evacuatedBytes += page.live;
    int offset = 0;
    while (offset < page.used) {
      long lengths = EntryLayout.readLengths(page.memory, offset);
      int bytes = EntryLayout.entrySize(lengths, expires);
      int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
      long hash = KeyHash.hash(page.memory, keyOffset, EntryLayout.keyLength(lengths));
      int i = find(IndexSlot.tag(hash), IndexSlot.address(page.number, offset));
      PageQueue to = page.queue == protectedQueue ? protectedQueue : main;
      if (i >= 0 && !relocate(i, table[i], IndexSlot.clock(table[i]), bytes, to)) {
        return;
      }
      offset += bytes;
    }
    page.queue.remove(page);
    pages.recycle(page);
  }

  // ------------------------------------------------------------------ maintenance

  /**
   * Removes up to {@code budget} slots' worth of expired entries, continuing where the last sweep
   * stopped.
   *
   * @return removed entries for listeners, and counts
   */
  public WriteResult sweepExpired(long now, int budget) {
    if (!expires) {
      // Not result(): that hands over and resets what a writer holding the lock is collecting.
      return NOTHING_DONE;
    }
    long stamp = lock.writeLock();
    try {
      if (closed) {
        // a sweep that raced the split sweeps the stripes, as clear() does
        return successors == null
            ? result(false, null)
            : onEverySuccessor(segment -> segment.sweepExpired(now, budget));
      }
      nowForSweep = now;
      long[] t = table;
      int capacity = t.length;
      int i = Math.min(sweepCursor, capacity - 1);
      for (int examined = 0; examined < Math.min(budget, capacity); ) {
        long slot = t[i];
        if (slot != IndexSlot.EMPTY
            && slot != IndexSlot.TOMBSTONE
            && isExpired(deadlineOf(slot), now)) {
          removeAt(i, RemovalCause.EXPIRED);
        }
        i = i + 1 == capacity ? 0 : i + 1;
        examined++;
      }
      sweepCursor = i;
      compactIfWasteful();
      return result(true, null);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Removes every entry.
   *
   * @return the removed entries if the segment collects removals
   */
  public WriteResult clear() {
    long stamp = lock.writeLock();
    try {
      if (closed) {
        return successors == null ? result(false, null) : onEverySuccessor(Segment::clear);
      }
      if (settings.collects(RemovalCause.EXPLICIT)) {
        for (long slot : table) {
          if (slot != IndexSlot.EMPTY && slot != IndexSlot.TOMBSTONE) {
            if (removals.isEmpty()) {
              removals = new ArrayList<>();
            }
            removals.add(new RemovedEntry(copyKey(slot), copyValue(slot), RemovalCause.EXPLICIT));
          }
        }
      }
      int cleared = size;
      if (hot != null) {
        hot.clear();
      }
      table = new long[MIN_CAPACITY];
      tombstones = 0;
      size = 0;
      resetFirstByteCounts();
      window.clear();
      main.clear();
      protectedQueue.clear();
      pageLiveBytes = 0;
      reachedBound = false;
      pages.releaseAll();
      return result(true, null, cleared);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * Copies the keys of all live entries, for iteration, in an order scattered over the index (see
   * {@link #scatterStep}). Weakly consistent: every key present throughout is returned once; a key
   * added or removed meanwhile may or may not be (one removed and added again, twice).
   *
   * <p>The walk holds the write lock for {@link #KEYS_STEP_SLOTS} slots at a time and lets writers
   * in between: holding it for the whole index stopped every write to the segment for as long as
   * copying all its keys took (a server checkpoint walks every segment so, and a walking thread
   * that loses its core while holding the lock stopped them for hundreds of milliseconds). A
   * present key's slot never moves while the index stays the same array, so resuming at the next
   * slot misses none; if the index was rebuilt (grown, purged, cleared) or the segment closed
   * (split) meanwhile, the rest comes from a fresh walk, without the keys already copied.
   *
   * @return encoded keys
   */
  @SuppressWarnings("ReferenceEquality") // the same table means no resize since the lock was let go
  public List<byte[]> keys() {
    List<byte[]> keys;
    boolean changed = false;
    long stamp = lock.writeLock();
    try {
      if (closed && successors != null) {
        keys = new ArrayList<>();
        for (Segment segment : successors) {
          keys.addAll(segment.keys());
        }
        return keys;
      }
      throwIfClosed();
      keys = new ArrayList<>(size);
      long[] t = table;
      int step = scatterStep(t.length);
      for (int n = 0, i = 0; n < t.length; n++) {
        if (n % KEYS_STEP_SLOTS == 0 && n > 0) {
          lock.unlockWrite(stamp);
          stamp = lock.writeLock();
          if (closed || table != t) {
            changed = true;
            break;
          }
        }
        long slot = t[i];
        if (slot != IndexSlot.EMPTY && slot != IndexSlot.TOMBSTONE) {
          keys.add(copyKey(slot));
        }
        i += step;
        if (i >= t.length) {
          i -= t.length;
        }
      }
    } finally {
      lock.unlockWrite(stamp);
    }
    return changed ? withRest(keys) : keys;
  }

  /** What {@link #snapshotSlot} found at a slot. */
  private static final int SNAPSHOT_NONE = 0;

  private static final int SNAPSHOT_COPIED = 1;
  private static final int SNAPSHOT_CHANGED = 2;
  private static final int SNAPSHOT_RETRY = 3;

  /** Lock-free attempts at one slot in {@link #snapshot} before it is read under the lock. */
  static final int SNAPSHOT_OPTIMISTIC_ATTEMPTS = 4;

  /**
   * Hands every live entry's encoded key and value to {@code visitor} (a cache's {@code
   * BulkSnapshot} walk: a server's checkpoint), holding no lock while the visitor runs and the
   * write lock only for one entry's copy, and only when reading it lock-free failed a few times.
   *
   * <p>The walk reads the index as the lock-free readers do: each live slot's entry is copied into
   * {@code scratch}, then validated (the slot still points to it, its page was not recycled, the
   * index is the same array), so writers never wait for it: a walk that held the lock for a few
   * thousand slots at a time made a write to that segment wait for the copy, and for the whole walk
   * when the walking thread lost its core meanwhile (a server's checkpoint of 1,000,000 keys under
   * load: 78 waits in {@code put}, up to 94 ms). A present key's slot never moves while the index
   * stays the same array, so every key present throughout is handed over, with its value at the
   * moment its copy was validated. If the index was rebuilt (grown, purged, cleared) or the segment
   * retired (split, closed) during the walk, the walk starts again on the new index or the
   * successors, handing over again the keys it had handed over: a key may then come twice, each
   * time with a value it held during the walk. Restarts, like a lock-free reader's retries, happen
   * only when a writer rebuilt the index meanwhile.
   *
   * @param now ticker time (expired entries are left out, as a peek leaves them)
   * @param scratch where each entry is copied; the visitor reads it there
   * @param visitor receives each entry; what it throws ends the walk
   * @throws IllegalStateException if the segment is closed and not split
   */
  @SuppressWarnings("ReferenceEquality") // the same table means no rebuild since the walk began
  public void snapshot(
      long now, SnapshotScratch scratch, BulkSnapshot.EncodedEntryVisitor visitor) {
    for (; ; ) {
      if (closed) {
        Segment[] next = successors;
        if (next == null) {
          throw new IllegalStateException("cache is closed");
        }
        for (Segment segment : next) {
          segment.snapshot(now, scratch, visitor);
        }
        return;
      }
      if (walkSnapshot(table, now, scratch, visitor)) {
        return;
      }
    }
  }

  /** One walk of index {@code t}; false if it was rebuilt or the segment retired meanwhile. */
  private boolean walkSnapshot(
      long[] t, long now, SnapshotScratch scratch, BulkSnapshot.EncodedEntryVisitor visitor) {
    int capacity = t.length;
    int step = scatterStep(capacity);
    for (int n = 0, i = 0; n < capacity; n++) {
      int found = snapshotSlot(t, i, now, scratch);
      if (found == SNAPSHOT_CHANGED) {
        return false;
      }
      if (found == SNAPSHOT_COPIED) {
        visitor.entry(scratch.bytes(), scratch.keyLength(), scratch.valueLength());
      }
      i += step;
      if (i >= capacity) {
        i -= capacity;
      }
    }
    return true;
  }

  /** Copies slot {@code i}'s live entry into {@code scratch}: lock-free, else under the lock. */
  @SuppressWarnings("ReferenceEquality") // the same table: no rebuild
  private int snapshotSlot(long[] t, int i, long now, SnapshotScratch scratch) {
    for (int attempt = 0; attempt < SNAPSHOT_OPTIMISTIC_ATTEMPTS; attempt++) {
      long slot = (long) SLOTS.getAcquire(t, i);
      if (slot == IndexSlot.EMPTY || slot == IndexSlot.TOMBSTONE) {
        // a stale index's empty slot says nothing of the current one
        return table == t && !closed ? SNAPSHOT_NONE : SNAPSHOT_CHANGED;
      }
      try {
        int found = tryCopyEntry(t, i, slot, now, scratch);
        if (found != SNAPSHOT_RETRY) {
          return found;
        }
      } catch (IndexOutOfBoundsException e) {
        // A torn read of a page that a writer was recycling or freeing: read again.
      }
      Thread.onSpinWait();
    }
    return lockedCopyEntry(t, i, now, scratch);
  }

  /**
   * One lock-free copy of the entry {@code slot} (read from {@code t[i]}) points to, validated as
   * {@link #readIfKey} validates a read.
   */
  @SuppressWarnings("ReferenceEquality") // the same table: no rebuild
  private int tryCopyEntry(long[] t, int i, long slot, long now, SnapshotScratch scratch) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    if (page == null) {
      return table == t && !closed ? SNAPSHOT_RETRY : SNAPSHOT_CHANGED;
    }
    int generation = page.generation();
    MemorySegment memory = page.memory;
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(memory, offset);
    int length = EntryLayout.keyLength(lengths) + EntryLayout.valueLength(lengths);
    if (lengths < 0 || length < 0 || length > page.capacity) {
      return table == t && !closed ? SNAPSHOT_RETRY : SNAPSHOT_CHANGED;
    }
    boolean expired = expires && isExpired(EntryLayout.deadline(memory, offset, lengths), now);
    if (!expired) {
      MemorySegment.copy(
          memory,
          ValueLayout.JAVA_BYTE,
          EntryLayout.keyOffset(offset, lengths, expires),
          scratch.room(length),
          0,
          length);
    }
    VarHandle.acquireFence();
    long current = (long) SLOTS.getAcquire(t, i);
    if (table != t || closed) {
      return SNAPSHOT_CHANGED;
    }
    if (page.generation() != generation
        || IndexSlot.withClock(current, 0) != IndexSlot.withClock(slot, 0)) {
      return SNAPSHOT_RETRY;
    }
    if (expired) {
      return SNAPSHOT_NONE;
    }
    scratch.copied(EntryLayout.keyLength(lengths), EntryLayout.valueLength(lengths));
    return SNAPSHOT_COPIED;
  }

  /** Copies slot {@code i}'s live entry under the write lock: slots written faster than read. */
  @SuppressWarnings("ReferenceEquality") // the same table: no rebuild
  private int lockedCopyEntry(long[] t, int i, long now, SnapshotScratch scratch) {
    long stamp = lock.writeLock();
    try {
      if (closed || table != t) {
        return SNAPSHOT_CHANGED;
      }
      long slot = t[i];
      if (slot == IndexSlot.EMPTY || slot == IndexSlot.TOMBSTONE) {
        return SNAPSHOT_NONE;
      }
      long address = IndexSlot.address(slot);
      Page page = pages.page(IndexSlot.page(address));
      int offset = IndexSlot.offset(address);
      long lengths = EntryLayout.readLengths(page.memory, offset);
      if (expires && isExpired(EntryLayout.deadline(page.memory, offset, lengths), now)) {
        return SNAPSHOT_NONE;
      }
      int keyLength = EntryLayout.keyLength(lengths);
      int valueLength = EntryLayout.valueLength(lengths);
      MemorySegment.copy(
          page.memory,
          ValueLayout.JAVA_BYTE,
          EntryLayout.keyOffset(offset, lengths, expires),
          scratch.room(keyLength + valueLength),
          0,
          keyLength + valueLength);
      scratch.copied(keyLength, valueLength);
      return SNAPSHOT_COPIED;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** The keys copied before the index changed, then those of a fresh walk not among them. */
  private List<byte[]> withRest(List<byte[]> copied) {
    Set<ByteBuffer> seen = new HashSet<>();
    for (byte[] key : copied) {
      seen.add(ByteBuffer.wrap(key));
    }
    for (byte[] key : keys()) {
      if (seen.add(ByteBuffer.wrap(key))) {
        copied.add(key);
      }
    }
    return copied;
  }

  /**
   * The stride of {@link #keys}' walk: it visits slot {@code n * step mod capacity} for each {@code
   * n} below the capacity, every slot once since the step is coprime to the capacity.
   *
   * <p>Why not slot order: slots are ordered by their key's hash (a key's home is its tag scaled to
   * the capacity), so keys copied in slot order into a fresh cache of the same shape arrive in
   * ascending home order, while that cache's index is still small: the early keys' homes all fall
   * in a prefix of it far denser than its load allows, and each new key walks the whole growing
   * probe run, quadratic in the keys. A stride near capacity / golden ratio spreads every prefix of
   * the walk evenly over the hash range, so such a copy costs what random inserts do (a cluster's
   * state transfer of 256 Ki entries of 1 KiB into a fresh cache: 5-10x faster).
   *
   * @param capacity the index's length, at least 1
   * @return a step in [1, capacity], coprime to it
   */
  static int scatterStep(int capacity) {
    int step = (int) (capacity * 0.6180339887498949) | 1;
    while (gcd(step, capacity) != 1) {
      step += 2;
    }
    return Math.min(step, capacity);
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int r = a % b;
      a = b;
      b = r;
    }
    return a;
  }

  /**
   * Frees all pages; later calls throw {@link IllegalStateException}. A segment that was split
   * closes its successors.
   */
  public void close() {
    long stamp = lock.writeLock();
    Segment[] next;
    try {
      if (!closed) {
        retire();
      }
      next = successors;
    } finally {
      lock.unlockWrite(stamp);
    }
    if (next != null) {
      for (Segment segment : next) {
        segment.close();
      }
    }
  }

  /**
   * Empties the segment for good and gives its pages back; under the write lock. The table is
   * replaced before the pages go, so that a lock-free reader who sees a freed page's new generation
   * also sees the new table and reads again (then finds the segment closed). Waits for no reader:
   * one still holding a page reads stale bytes or zeros until it validates.
   */
  private void retire() {
    if (hot != null) {
      hot.clear();
    }
    closed = true;
    table = new long[MIN_CAPACITY];
    size = 0;
    resetFirstByteCounts();
    window.clear();
    main.clear();
    protectedQueue.clear();
    pageLiveBytes = 0;
    pages.close();
  }

  // ------------------------------------------------------------------ splitting

  /**
   * Returns the successor that holds {@code hash}'s key, for a call that found this segment closed.
   *
   * @throws IllegalStateException if the segment was closed rather than split
   */
  private Segment successor(long hash) {
    Segment[] next = successors;
    if (next == null) {
      throw new IllegalStateException("cache is closed");
    }
    return next[(int) hash & (next.length - 1)];
  }

  /**
   * Hands every entry to new segments and retires: a cache that starts with one segment splits it
   * this way into the stripes its bound calls for once it holds enough (see {@code SegmentTable}).
   * Under this segment's write lock: the successors are made, each live entry's bytes (deadline
   * included) are copied to the successor its hash routes to, in queue order and with its slot's
   * clock (see adopt), {@code publish} is told, and the segment retires as {@link #close} does,
   * with {@link #successors} set first. From then on every call on it forwards to the successor of
   * its key (lock-free reads too: a reader racing the retirement sees the new table or a page's new
   * generation, reads again and finds the segment closed), and {@link #close} closes the
   * successors.
   *
   * <p>The caller splits while this segment holds a small share of its successors' bounds, so that
   * they take every entry without evicting; should one have to, its evictions are in the result,
   * for the removal listener.
   *
   * @param factory makes the successors, a power of two of them, each open and empty; called under
   *     this segment's lock and only if it is open
   * @param publish told of the successors once they hold every entry, before this segment retires,
   *     so that callers routed afresh find them at once
   * @return removals and evictions the successors made, or null if this segment was closed (then
   *     nothing was made)
   */
  public WriteResult splitInto(Supplier<Segment[]> factory, Consumer<Segment[]> publish) {
    long stamp = lock.writeLock();
    try {
      if (closed) {
        return null;
      }
      // The successors do not know this segment's hot entries, so none may outlive the moment
      // a write can reach a successor (after publish).
      if (hot != null) {
        hot.clear();
      }
      Segment[] next = factory.get();
      handOver(main, next);
      handOver(protectedQueue, next);
      handOver(window, next);
      List<RemovedEntry> removed = new ArrayList<>();
      int evicted = 0;
      for (Segment segment : next) {
        WriteResult r = segment.adoptionResult();
        removed.addAll(r.removals());
        evicted += r.evictions();
      }
      publish.accept(next);
      successors = next;
      retire();
      return new WriteResult(true, null, removed, evicted, 0, 0);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Copies the live entries of {@code queue}, oldest first, to their successors. */
  private void handOver(PageQueue queue, Segment[] next) {
    for (Page page : queue.pages()) {
      int offset = 0;
      while (offset < page.used) {
        long lengths = EntryLayout.readLengths(page.memory, offset);
        int bytes = EntryLayout.entrySize(lengths, expires);
        int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
        long hash = KeyHash.hash(page.memory, keyOffset, EntryLayout.keyLength(lengths));
        int i = find(IndexSlot.tag(hash), IndexSlot.address(page.number, offset));
        if (i >= 0) {
          next[(int) hash & (next.length - 1)].adopt(
              page.memory, offset, bytes, hash, IndexSlot.clock(table[i]), sketch.frequency(hash));
        }
        offset += bytes;
      }
    }
  }

  /**
   * Appends a copy of an entry to the window, as a write of a new key would, keeping its deadline
   * and clock. The splitting segment has not reached its bound (it splits long before), so its main
   * queue holds only window pages spliced as they were, and nothing is protected: copied in queue
   * order through the window, the entries end in the same queues and pages as a fill in that order
   * would leave (copying each to the queue it was in would leave every successor a partly filled
   * main head page that later splices go behind: with 64 KiB pages that was 2 B an entry more at
   * 100 MiB). The key's count in the sketch comes along: before the bound is first reached every
   * key requested is present, so the successors' sketches then hold what the splitting one knew of
   * their keys (without it, P3 at 100,000 entries lost 0.37 points of hit ratio).
   *
   * @param frequency the key's count in the splitting segment's sketch
   */
  private void adopt(
      MemorySegment from, int offset, int bytes, long hash, int clock, int frequency) {
    long stamp = lock.writeLock();
    try {
      nowForSweep = Long.MIN_VALUE;
      PageQueue queue = window;
      for (int i = 0; i < frequency; i++) {
        sketch.increment(hash);
      }
      policy.onInsert(hash);
      adaptPolicy();
      makeRoomForNewKey();
      long address = append(queue, bytes, true);
      if (address < 0) {
        throw new IllegalStateException(
            "a segment split while too full to hand over an entry of " + bytes + " bytes");
      }
      Page page = pages.page(IndexSlot.page(address));
      MemorySegment.copy(from, offset, page.memory, IndexSlot.offset(address), bytes);
      account(page, queue, bytes);
      insertSlot(IndexSlot.of(IndexSlot.tag(hash), clock, address));
      spliceWindowIfNotFull();
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Returns what adopting entries collected (removals, counts), handed over. */
  private WriteResult adoptionResult() {
    long stamp = lock.writeLock();
    try {
      return result(true, null);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /**
   * A call on a split segment that must reach every key (clear, a sweep): made on each successor,
   * the results merged into one.
   */
  private WriteResult onEverySuccessor(Function<Segment, WriteResult> call) {
    List<RemovedEntry> removed = new ArrayList<>();
    int evicted = 0;
    int expired = 0;
    int cleared = 0;
    for (Segment segment : successors) {
      WriteResult r = call.apply(segment);
      removed.addAll(r.removals());
      evicted += r.evictions();
      expired += r.expirations();
      cleared += r.cleared();
    }
    return new WriteResult(true, null, removed, evicted, expired, cleared);
  }

  private void throwIfClosed() {
    if (closed) {
      throw new IllegalStateException("cache is closed");
    }
  }

  // ------------------------------------------------------------------ entry access

  private byte[] copyValue(long slot) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    int valueOffset =
        EntryLayout.keyOffset(offset, lengths, expires) + EntryLayout.keyLength(lengths);
    byte[] value = new byte[EntryLayout.valueLength(lengths)];
    MemorySegment.copy(page.memory, ValueLayout.JAVA_BYTE, valueOffset, value, 0, value.length);
    return value;
  }

  private byte[] copyKey(long slot) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    long lengths = EntryLayout.readLengths(page.memory, offset);
    int keyOffset = EntryLayout.keyOffset(offset, lengths, expires);
    byte[] key = new byte[EntryLayout.keyLength(lengths)];
    MemorySegment.copy(page.memory, ValueLayout.JAVA_BYTE, keyOffset, key, 0, key.length);
    return key;
  }

  private long deadlineOf(long slot) {
    long address = IndexSlot.address(slot);
    Page page = pages.page(IndexSlot.page(address));
    int offset = IndexSlot.offset(address);
    return EntryLayout.deadline(page.memory, offset, EntryLayout.readLengths(page.memory, offset));
  }

  private static boolean isExpired(long deadline, long now) {
    return now != Long.MIN_VALUE && now - deadline >= 0;
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /**
   * The hash the store uses for a key's bytes.
   *
   * @param key encoded key
   * @param length its length
   * @return the 64-bit hash
   */
  public static long hash(byte[] key, int length) {
    return KeyHash.hash(key, 0, length);
  }

  /**
   * The hash the store uses for the key at {@code offset} of {@code bytes}: {@link #hash(byte[],
   * int)} of the same bytes.
   *
   * @param bytes holds the encoded key
   * @param offset where it starts
   * @param length its length
   * @return the 64-bit hash
   */
  public static long hash(byte[] bytes, int offset, int length) {
    return KeyHash.hash(bytes, offset, length);
  }
}
