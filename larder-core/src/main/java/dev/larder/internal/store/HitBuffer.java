package dev.larder.internal.store;

/**
 * A platform thread's record of its latest lookups (hits and misses), not yet told to the
 * eviction policy of the segments they went to. Readers thus write nothing shared on a lookup:
 * the policy's request and hit counters, the frequency sketch and the slot's access counter are
 * written when the record is applied, under the segment's write lock, by the thread that made
 * it. A lookup recorded on a shared structure instead (the counters, as before) moves those
 * cache lines between cores on every hit once two threads read one segment.
 *
 * <p>A thread applies its records for a segment when it next takes that segment's write lock
 * (a write of its own), and all of them when the buffer is full, taking each segment's lock only
 * if it is free ({@code tryWriteLock}): the records of a segment whose lock is held are dropped,
 * as Caffeine's read buffer drops reads when it is full. Dropping only blurs statistics the
 * policy already reads racily. A record names the entry's address and its page's generation,
 * so one whose entry was moved, removed or whose page was recycled meanwhile is dropped too.
 * In one thread nothing is dropped and every record is applied before any write reaches the
 * policy, in the order made: the policy sees what it saw when readers wrote the counters
 * directly.
 *
 * <p>A record holds a reference to its segment until applied, so a thread keeps at most
 * {@link #CAPACITY} segments (of caches possibly closed meanwhile: their records are dropped)
 * reachable. Virtual threads get no buffer (their lookups go to the policy directly, as
 * before): there can be millions of them, each reading a few times.
 *
 * <p>Confined to its thread; no synchronization.
 */
final class HitBuffer {

  /** Records a thread holds before it applies them all. */
  static final int CAPACITY = 16;
  /** The place of a miss: a request the sketch counts, for no entry. */
  static final long MISS = -1;

  private static final ThreadLocal<HitBuffer> THREADS = ThreadLocal.withInitial(HitBuffer::new);

  private final Segment[] segments = new Segment[CAPACITY];
  private final long[] hashes = new long[CAPACITY];
  private final long[] places = new long[CAPACITY];
  private int count;
  /** Set while the buffer is being applied, so that nothing is added to it meanwhile. */
  private boolean applying;

  private HitBuffer() {}

  /** @return the calling thread's buffer, or null for a virtual thread */
  static HitBuffer mine() {
    Thread thread = Thread.currentThread();
    return thread.isVirtual() ? null : THREADS.get();
  }

  /**
   * @param entryAddress an entry's address in its segment
   * @param generation its page's generation when the entry was read
   * @return the place of a hit on that entry
   */
  static long place(long entryAddress, int generation) {
    // 23 bits of the generation, so that a place is never negative (never MISS)
    return entryAddress | ((long) (generation & 0x7F_FFFF) << 40);
  }

  /** @return the entry address of a hit's place */
  static long address(long place) {
    return place & ((1L << 40) - 1);
  }

  /** @return whether a hit's place was made on a page of this generation */
  static boolean sameGeneration(long place, int generation) {
    return (place >>> 40) == (generation & 0x7F_FFFF);
  }

  /**
   * Records a lookup, first applying every record if the buffer is full.
   *
   * @return false if it could not be recorded (the buffer is being applied): the caller tells
   *     the policy directly
   */
  boolean record(Segment segment, long hash, long place) {
    if (applying) {
      return false;
    }
    if (count == CAPACITY) {
      applyAll();
    }
    segments[count] = segment;
    hashes[count] = hash;
    places[count] = place;
    count++;
    return true;
  }

  /**
   * Applies and removes the records of {@code segment}, oldest first; the caller holds its write
   * lock. Records of other segments stay, in their order.
   */
  void applyTo(Segment segment) {
    if (count == 0 || applying) {
      return;
    }
    applying = true;
    try {
      int kept = 0;
      for (int i = 0; i < count; i++) {
        if (segments[i] == segment) {
          segment.applyRecord(hashes[i], places[i]);
        } else {
          segments[kept] = segments[i];
          hashes[kept] = hashes[i];
          places[kept] = places[i];
          kept++;
        }
      }
      for (int i = kept; i < count; i++) {
        segments[i] = null;
      }
      count = kept;
    } finally {
      applying = false;
    }
  }

  /**
   * Applies every record, one segment at a time under its write lock if free (else its records
   * are dropped), in the order they were made within each segment, and empties the buffer.
   */
  private void applyAll() {
    applying = true;
    try {
      for (int i = 0; i < count; i++) {
        Segment segment = segments[i];
        if (segment != null) {
          segment.applyRecords(this, i);
        }
      }
      java.util.Arrays.fill(segments, null);
      count = 0;
    } finally {
      applying = false;
    }
  }

  /**
   * For {@link Segment#applyRecords}: applies, through {@code segment}, its records from
   * {@code from} on and clears them; the caller holds the segment's write lock.
   */
  void applyFrom(Segment segment, int from) {
    for (int i = from; i < count; i++) {
      if (segments[i] == segment) {
        segment.applyRecord(hashes[i], places[i]);
        segments[i] = null;
      }
    }
  }

  /** For {@link Segment#applyRecords} when its lock is taken: drops its records. */
  void dropFrom(Segment segment, int from) {
    for (int i = from; i < count; i++) {
      if (segments[i] == segment) {
        segments[i] = null;
      }
    }
  }

  /** @return records held, for tests */
  int size() {
    return count;
  }
}
