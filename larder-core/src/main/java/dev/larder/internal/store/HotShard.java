package dev.larder.internal.store;

/**
 * One segment's part of the hot tier: the decoded values of its most read entries, found by the
 * store hash of their keys, within the segment's share of the tier's bound, and admitted by the
 * segment's frequency sketch.
 *
 * <p>Implementation notes.
 *
 * <ul>
 *   <li><b>Index.</b> An open-addressing array of {@link HotEntry} by store hash, at most half
 *       full, linear probing with backward-shift deletion. At most one entry a hash: any write of a
 *       key with that hash removes the entry (a 64-bit collision only costs an extra removal), so
 *       every live entry is found by every write of its key.
 *   <li><b>Admission.</b> A value read from the compact store is offered when the sketch counts its
 *       key at least {@link #bar(int)} (read racily by readers, so most cold reads go no further).
 *       With room, it enters. Without, a CLOCK hand walks the entries, clearing the bit a hit sets;
 *       the first entry not hit since the hand last passed is the victim, and the candidate
 *       replaces it only if the sketch counts the candidate more often. A loss raises the bar to
 *       one above the victim's count; an admission into room lowers it back, and the bar fades as
 *       the counts it was taken from do: halved with them at each of the sketch's halvings (else a
 *       bar raised by a victim read more often than any key is read now would close the tier to
 *       every new key for ever). Hits in the tier are not counted in the sketch (that would cost a
 *       write a hit), so a victim's count says how often it was read before it became hot: the
 *       CLOCK bit is what says it is still read.
 *   <li><b>Size.</b> An entry counts {@link #ENTRY_OVERHEAD} (its own object, the table's node and
 *       a share of the table's array) plus its key's and value's retained sizes ({@link
 *       RetainedSize}); the index array counts as allocated. The bound is the segment's share of
 *       the tier's bytes, of its entries, or both.
 * </ul>
 *
 * Everything but {@link #bar(int)} and {@link #seemsRoomy(int)} runs under the segment's write
 * lock.
 */
final class HotShard {

  /** HotEntry, the hash table's node, and about two references of its table. */
  static final long ENTRY_OVERHEAD =
      ObjectLayout.object(2L * ObjectLayout.REFERENCE + 21)
          + ObjectLayout.object(4L + 3L * ObjectLayout.REFERENCE)
          + 2L * ObjectLayout.REFERENCE;

  /**
   * The least sketch count a value needs before it is offered to the tier: one counted read (a
   * window entry's first read, or any read in main, see {@link EvictionPolicy#onHit}).
   */
  static final int MIN_FREQUENCY = 1;

  /** The shard's own object and fields. */
  static final long FIXED_OVERHEAD = 64;

  private static final HotEntry[] NONE = new HotEntry[0];

  private final HotTable table;
  private final long budgetBytes;
  private final long maxEntries;
  private HotEntry[] slots = NONE;
  private int count;
  private long entryBytes;
  private int hand;

  /**
   * The bar as a refusal set it, read racily by readers deciding whether to offer a value; written
   * under the lock. What it is worth now is {@link #bar(int)}.
   */
  private int bar = MIN_FREQUENCY;

  /** The sketch's {@link FrequencySketch#halvings()} when {@link #bar} was set. */
  private int barHalvings;

  /**
   * @param table the cache's table that readers look keys up in
   * @param budgetBytes this shard's bytes at most, or {@link Long#MAX_VALUE}
   * @param maxEntries this shard's entries at most, or {@link Long#MAX_VALUE}
   */
  HotShard(HotTable table, long budgetBytes, long maxEntries) {
    this.table = table;
    this.budgetBytes = budgetBytes;
    this.maxEntries = maxEntries;
  }

  /**
   * Returns the sketch count a value's key needs for it to be offered: the bar a refusal set,
   * halved for each time the sketch's counts were halved since. A racy read.
   *
   * @param halvings the sketch's {@link FrequencySketch#halvings()} now
   */
  int bar(int halvings) {
    int b = bar;
    int faded = halvings - barHalvings;
    if (faded <= 0) {
      return b;
    }
    return faded >= Integer.SIZE ? MIN_FREQUENCY : Math.max(MIN_FREQUENCY, b >>> faded);
  }

  /**
   * Whether the shard seems to have room and no refusal has raised its bar since it last had: then
   * any value read is worth offering, since one with room enters whatever its count. (A key written
   * again before its first read, and then read while in the store's window, is counted by the
   * sketch only once it leaves the window.) A racy read of fields written under the lock.
   *
   * @param halvings the sketch's {@link FrequencySketch#halvings()} now
   */
  boolean seemsRoomy(int halvings) {
    return bar(halvings) == MIN_FREQUENCY && count < maxEntries && entryBytes < budgetBytes;
  }

  /** Returns bytes counted for the shard: its entries and its index. */
  long bytes() {
    return count == 0 && slots.length == 0
        ? 0
        : FIXED_OVERHEAD + entryBytes + ObjectLayout.referenceArray(slots.length);
  }

  int size() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** Returns the entry for {@code hash}, or null. */
  HotEntry find(long hash) {
    if (count == 0) {
      return null;
    }
    int mask = slots.length - 1;
    for (int i = home(hash, mask); ; i = (i + 1) & mask) {
      HotEntry e = slots[i];
      if (e == null || e.hash == hash) {
        return e;
      }
    }
  }

  /**
   * Removes the entry of {@code hash} from the tier, readers' table first. Called before the key's
   * compact entry changes.
   *
   * @return the removed entry, or null
   */
  HotEntry remove(long hash) {
    if (count == 0) {
      return null;
    }
    int mask = slots.length - 1;
    for (int i = home(hash, mask); ; i = (i + 1) & mask) {
      HotEntry e = slots[i];
      if (e == null) {
        return null;
      }
      if (e.hash == hash) {
        table.remove(e);
        deleteAt(i);
        return e;
      }
    }
  }

  /** Removes every entry, readers' table first. */
  void clear() {
    for (HotEntry e : slots) {
      if (e != null) {
        table.remove(e);
      }
    }
    slots = NONE;
    count = 0;
    entryBytes = 0;
    hand = 0;
    bar = MIN_FREQUENCY;
  }

  /**
   * Reads of the key that came through the tier since the store's policy last asked (up to {@link
   * HotEntry#MOST_HITS}), forgotten once told: the policy counts them as reads of the compact
   * entry.
   */
  int takeHits(long hash) {
    HotEntry e = find(hash);
    return e == null ? 0 : e.takeHits();
  }

  /**
   * Offers a decoded value read from the compact store. The caller has checked, under the lock,
   * that the compact entry still holds the bytes the value was decoded from.
   *
   * @param frequency the sketch's count of the key
   * @param sketch the segment's sketch, for victims' counts
   * @return whether the value entered the tier
   */
  boolean offer(
      Object key,
      Object value,
      long hash,
      long deadline,
      long bytes,
      int frequency,
      FrequencySketch sketch) {
    long size = ENTRY_OVERHEAD + bytes;
    if (size > Integer.MAX_VALUE || size > budgetBytes) {
      return false;
    }
    remove(hash);
    while (!fits(size)) {
      HotEntry victim = nextVictim();
      if (victim == null) {
        return false;
      }
      int victimFrequency = sketch.frequency(victim.hash);
      if (frequency <= victimFrequency) {
        bar = Math.max(MIN_FREQUENCY, victimFrequency + 1);
        barHalvings = sketch.halvings();
        return false;
      }
      remove(victim.hash);
    }
    add(new HotEntry(key, value, hash, deadline, (int) size));
    if (fits(0)) {
      bar = MIN_FREQUENCY;
    }
    return true;
  }

  /**
   * Puts a written value in place of the entry a write removed (see {@link #remove}), if it fits
   * without evicting another: called after the write's compact entry is published.
   *
   * @param removed what the write removed, whose recency the new entry inherits
   */
  void replace(HotEntry removed, Object key, Object value, long deadline, long bytes) {
    long size = ENTRY_OVERHEAD + bytes;
    if (size <= Integer.MAX_VALUE && fits(size)) {
      HotEntry entry = new HotEntry(key, value, removed.hash, deadline, (int) size);
      entry.seen = removed.seen;
      entry.hits = removed.hits;
      add(entry);
    }
  }

  /** Returns whether one more entry of {@code size} bytes fits the shard's bounds. */
  private boolean fits(long size) {
    if (count + 1 > maxEntries) {
      return false;
    }
    long index = ObjectLayout.referenceArray(capacityFor(count + 1));
    return FIXED_OVERHEAD + entryBytes + size + index <= budgetBytes;
  }

  /**
   * Advances the CLOCK hand to an entry not hit since the hand last passed it, clearing the marks
   * of those passed; null if every entry was hit (their marks are cleared, so the next call finds
   * one).
   */
  private HotEntry nextVictim() {
    int length = slots.length;
    for (int n = 0; n < length; n++) {
      HotEntry e = slots[hand];
      hand = hand + 1 == length ? 0 : hand + 1;
      if (e != null && !e.takeSeen()) {
        return e;
      }
    }
    return null;
  }

  private void add(HotEntry entry) {
    if (capacityFor(count + 1) > slots.length) {
      grow(capacityFor(count + 1));
    }
    int mask = slots.length - 1;
    int i = home(entry.hash, mask);
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = entry;
    count++;
    entryBytes += entry.bytes;
    table.add(entry);
  }

  private static int capacityFor(int entries) {
    int capacity = 8;
    while (capacity < 2 * entries) {
      capacity <<= 1;
    }
    return capacity;
  }

  private void grow(int capacity) {
    HotEntry[] old = slots;
    slots = new HotEntry[capacity];
    int mask = capacity - 1;
    for (HotEntry e : old) {
      if (e != null) {
        int i = home(e.hash, mask);
        while (slots[i] != null) {
          i = (i + 1) & mask;
        }
        slots[i] = e;
      }
    }
    hand = 0;
  }

  /** Deletes slot {@code i} and shifts back the entries after it that probed past it. */
  private void deleteAt(int i) {
    HotEntry removed = slots[i];
    int mask = slots.length - 1;
    int hole = i;
    for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
      int home = home(slots[j].hash, mask);
      // move j into the hole if its home is not in the cyclic range (hole, j]
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = null;
    count--;
    entryBytes -= removed.bytes;
  }

  private static int home(long hash, int mask) {
    return (int) (hash ^ (hash >>> 29)) & mask;
  }
}
