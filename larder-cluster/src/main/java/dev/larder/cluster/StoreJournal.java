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
 * <p>The journal also keeps this member's <em>epoch</em>: an opaque number the cluster composes
 * (larger means newer), which says up to when this member's record holds every write the cluster
 * acknowledged. At a full restart, the members compare the epochs their journals recovered and
 * start from the store of the member with the largest (see docs/design/cluster.md, "Restarting
 * every member"). A journal that does not keep one reports 0 from {@link #recordedEpoch}, and its
 * member is then never preferred over one whose journal does.
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
   * Returns the epoch this journal recorded last ({@link #recordEpoch}), as recovered when the
   * member started; 0 if it never recorded one.
   *
   * @return the epoch, at least 0
   */
  long recordedEpoch();

  /**
   * Records this member's epoch: its record holds every write the cluster acknowledged up to {@code
   * epoch}; 0 when it does not hold a complete copy (it is about to drop its entries and receive
   * the cluster's). Durable when it returns, and recorded after every change told before it.
   *
   * @param epoch the new epoch, at least 0
   */
  void recordEpoch(long epoch);
}
