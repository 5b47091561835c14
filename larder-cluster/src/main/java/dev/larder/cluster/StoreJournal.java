package dev.larder.cluster;

/**
 * Hears every change to one member's own store (the entries it owns and its backup copies), so that
 * the member can keep a durable record of that store: a clustered server's log. Given to {@link
 * ClusteredCacheBuilder#localStore} with the store it watches.
 *
 * <p>Contract. Each method is called after the store changed, on the thread that changed it: a
 * replication delivery thread, a caller's thread on the key's primary, state transfer's thread.
 * {@link #stored} and {@link #removed} are called while the key's segment is locked, so two changes
 * of one key reach the journal in the order the store applied them; they record, and need not wait.
 * {@link #sync} then waits until every change told so far is durable: a member calls it after each
 * replicated write it applies and before it acknowledges that write (to its primary, or to the
 * caller), so every acknowledged write is durable on every owner; and state transfer calls it once
 * per batch of entries received or dropped, before it counts a segment complete. A journal must not
 * call back into the clustered cache. An exception it throws fails the write that caused it (the
 * member does not acknowledge it) or, on state transfer's thread, is logged.
 *
 * <p>The journal also keeps this member's <em>epochs</em>, one per segment of the key space: opaque
 * numbers the cluster composes (larger means newer), each saying up to when this member's record
 * holds every write the cluster acknowledged to that segment, 0 where it holds no complete copy. At
 * a full restart, the members compare the epochs their journals recovered and start each segment
 * from the store of the member with the largest (see docs/design/cluster.md, "Durable members").
 *
 * <p>Implementations must be thread-safe.
 */
public interface StoreJournal {

  /**
   * The store now holds {@code value} under {@code key}.
   *
   * @param key the encoded key
   * @param value the stored value bytes
   */
  void stored(byte[] key, byte[] value);

  /**
   * The store no longer holds {@code key} (a removal, or a stale entry dropped by state transfer).
   *
   * @param key the encoded key
   */
  void removed(byte[] key);

  /** The store was emptied ({@link ClusteredCache#invalidateAll()}). */
  void cleared();

  /** Waits until every change told so far is durable. */
  void sync();

  /**
   * Returns the epochs this journal recorded last ({@link #recordEpochs}), as recovered when the
   * member started: one per segment. A journal that recorded a single epoch for its whole store (an
   * older record, which claimed every segment complete) returns that epoch for every segment; one
   * that never recorded any returns zeros.
   *
   * @param segments the cluster's number of segments
   * @return a new array of {@code segments} epochs, each at least 0
   */
  long[] recordedEpochs(int segments);

  /**
   * Records this member's epochs, one per segment: its record holds every write the cluster
   * acknowledged to segment {@code s} up to {@code epochs[s]}; 0 where it does not hold a complete
   * copy of the segment (it is about to drop its entries, or receives the segment). Durable when it
   * returns, and recorded after every change told before it.
   *
   * @param epochs one epoch per segment, each at least 0; the journal may keep the array
   */
  void recordEpochs(long[] epochs);
}
