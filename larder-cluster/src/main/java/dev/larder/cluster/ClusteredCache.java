package dev.larder.cluster;

import dev.larder.Cache;
import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A {@link Cache} whose entries live on the members of a JGroups cluster, as the {@link
 * ClusterConfig} says: replicated, distributed with a number of owners, or invalidated.
 *
 * <p>Thread-safe. Every member that builds a clustered cache with the same cluster name, stack,
 * mode and segment count joins the same cluster. Keys and values are encoded once by the member
 * that takes the call, travel and are stored as those bytes, and are decoded only when returned;
 * key codecs must be deterministic (equal keys encode to equal bytes), and conditional writes
 * compare values by their encoded bytes.
 *
 * <p>Differences from a local {@link Cache}, all documented on the methods below, on {@link
 * ClusteredCacheBuilder} or in docs/design/cluster.md: a loader runs on the member that missed and
 * its value is stored with a put-if-absent on the key's primary; expiry is expire-after-write only,
 * with the deadline stamped by the primary; a removal listener hears each removal once, on the
 * key's primary (invalidation mode: each member its own store's); {@link #get(Object,
 * java.util.function.Function)} and {@link #compute} run their function on the calling member and
 * apply the result with a compare-and-set on the key's primary, retrying on conflict (the function
 * may run more than once); {@link #estimatedSize()} and iteration of {@link #asMap()} gather from
 * every member; {@link #memoryUsed()} and {@link #stats()} are this member's; {@link
 * #invalidateAll()} is not atomic with concurrent writes. Any operation that needs other members
 * throws {@link ClusterTimeoutException} if they do not answer within {@link
 * ClusterConfig#timeout()}, or {@link ClusterException} on other cluster failures.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ClusteredCache<K, V> extends Cache<K, V> {

  /**
   * Returns a builder.
   *
   * @param keyCodec encodes keys; must be deterministic
   * @param valueCodec encodes values
   * @param <K> the key type
   * @param <V> the value type
   */
  static <K, V> ClusteredCacheBuilder<K, V> builder(Codec<K> keyCodec, Codec<V> valueCodec) {
    return new ClusteredCacheBuilder<>(keyCodec, valueCodec);
  }

  /**
   * Returns a builder.
   *
   * @param keyType the key class (see {@link Codecs#forType})
   * @param valueType the value class
   * @param <K> the key type
   * @param <V> the value type
   */
  static <K, V> ClusteredCacheBuilder<K, V> builder(Class<K> keyType, Class<V> valueType) {
    return new ClusteredCacheBuilder<>(Codecs.forType(keyType), Codecs.forType(valueType));
  }

  /**
   * Joins the cluster, for a cache from {@link ClusteredCacheBuilder#buildUnjoined} (one from
   * {@link ClusteredCacheBuilder#build} has joined already); returns once this member is in a view
   * of {@link ClusterConfig#initialClusterSize} members, as {@code build} does. Until it returns
   * the cache is not joined: {@link #nodeName}, {@link #clusterConfig}, {@link #onMessages} and
   * {@link #close} work, {@link #members} and {@link #segmentOwners} are empty, the counters read
   * 0, and every read or write of entries, count or walk of the cluster, and question of ownership
   * ({@link #isLocalOwner}, {@link #isLocalPrimary}, {@link #ownedSegments}) throws {@link
   * IllegalStateException}. Call it once; {@link #close} from another thread ends a join that is
   * still waiting for members (the join then throws {@link ClusterException}).
   *
   * @throws ClusterException if the cluster cannot be joined; the cache (and a given local store)
   *     is then closed
   * @throws IllegalStateException if join was called before, or the cache is closed
   */
  void join();

  /** Returns this member's name in the cluster. */
  String nodeName();

  /** Returns the names of the current members, coordinator first. */
  List<String> members();

  /** Returns the configuration this cache joined with. */
  ClusterConfig clusterConfig();

  /**
   * Returns true if this member owns the key's segment (always true in invalidation mode).
   *
   * @param key a key
   */
  boolean isLocalOwner(K key);

  /** Returns the number of segments this member owns (0 in invalidation mode). */
  int ownedSegments();

  /** Returns entries held in this member's store (its own and its backups). */
  long localEntryCount();

  /** Returns what state transfer moved to this member, and how long it took. */
  RebalanceStats rebalanceStats();

  /**
   * Waits until this member holds every segment it owns (its state transfer finished).
   *
   * @param timeout how long to wait
   * @return true if it does, false on timeout
   */
  boolean awaitRebalanced(Duration timeout);

  /**
   * Returns merges (after a partition) in which this member was on a side that lost: it dropped its
   * entries and received the winning side's.
   */
  long mergesLost();

  /**
   * Returns the segments this member waits for: it owns them, and every member holding their newest
   * record has left (a member with a {@link ClusteredCacheBuilder#localStore journal}, after a full
   * restart or when every complete owner of a segment left at once), so their reads and writes are
   * refused until such a member returns with its record. Empty for a member without a journal.
   */
  List<Integer> waitingSegments();

  /**
   * Gives up, on every member of the view, the records the {@link #waitingSegments waiting
   * segments} wait for, when the members holding them will never return (their disks are lost):
   * each such segment starts empty on its owners (within a few hundred milliseconds), is counted in
   * {@link RebalanceStats#segmentsLost()}, and is logged as an error on each member. <b>Every
   * acknowledged write that only those records held is lost.</b> A segment still being received
   * from a member of the view is not given up.
   *
   * @return the segments given up, in order (empty if none waited)
   * @throws ClusterDegradedException if this member is on a minority side (quorum)
   * @throws ClusterTimeoutException if a member did not answer within the cluster timeout
   */
  List<Integer> abandonWaitingSegments();

  /**
   * Returns what this member's near cache did (see {@link ClusteredCacheBuilder#nearCache}), or
   * {@link NearCacheStats#NONE} without one.
   */
  NearCacheStats nearStats();

  /**
   * Stores a value as {@link #put} does, without making the calling thread wait for other members
   * where it need not. When this member is the key's primary and replication is {@link
   * Replication#SYNC}, the value is stored here and sent to the key's other owners before this
   * returns, and the returned stage completes once every owner acknowledged it: the guarantee
   * {@link #put} gives on return. Otherwise (another member is the primary, {@link
   * Replication#ASYNC}, a member with a {@link ClusteredCacheBuilder#localStore journal}, a view
   * change in the way) this runs as {@link #put} on the calling thread and returns a completed
   * stage. A write that must be retried in a new view after it was sent is retried on another
   * thread. So reads through this member see the value once this returns, as they would after
   * {@link #put} (unless the stage then fails).
   *
   * <p>The stage completes on a thread of the cluster's (the one delivering the last
   * acknowledgement, or a timer's): what is chained to it must not block.
   *
   * @param key the key
   * @param value the value
   * @return completes normally once every owner holds the value; exceptionally with {@link
   *     ClusterTimeoutException} or {@link ClusterException} as {@link #put} would throw
   * @throws ClusterDegradedException if this member is on a minority side (quorum)
   * @throws ClusterTimeoutException if a write run on the calling thread timed out
   */
  CompletionStage<Void> putAsync(K key, V value);

  /**
   * Holds back, on the calling thread, the copies of the writes it applies as the key's primary
   * that no caller waits for ({@link Replication#ASYNC}), until this thread calls {@link
   * #sendHeldBackups}: the copies of a batch of writes then reach each backup member in one message
   * and one delivery rather than one each. The writes themselves are applied on this member as
   * before, and each key's copies still reach its backups in the order they were applied; only when
   * they leave changes (anything else sent to a backup member sends what is held for it first). A
   * thread that calls this must call {@link #sendHeldBackups} soon after (an event loop: at the end
   * of its iteration), whether or not it wrote. Idempotent; no effect on synchronous replication's
   * copies, which are sent at once.
   */
  void holdBackups();

  /**
   * Sends every backup copy held back ({@link #holdBackups}), this thread's and any other's, and
   * stops holding the calling thread's. Cheap when nothing is held; never throws for a failed send.
   */
  void sendHeldBackups();

  /**
   * Returns how many values this member's store has taken, by any path (a write applied here as
   * primary or backup, an entry state transfer brought), that the builder's {@link
   * ClusteredCacheBuilder#countStoredValues} predicate accepted; 0 without one. Only grows.
   */
  long countedValuesStored();

  /** Returns async writes dropped because no primary could take them during a view change. */
  long asyncWritesDropped();

  /**
   * Returns whether this member serves writes now: always under {@link
   * PartitionHandling#ALLOW_ALL}; under {@link PartitionHandling#QUORUM}, while its view holds a
   * majority of the stable members.
   */
  boolean available();

  /**
   * Returns the names of the stable members this member counts a majority of under {@link
   * PartitionHandling#QUORUM} (empty under ALLOW_ALL, or before it saw {@link
   * ClusterConfig#initialClusterSize()} members).
   */
  List<String> stableMembers();

  /**
   * Returns true if this member is the key's primary in its current view (never in invalidation
   * mode).
   *
   * @param key a key
   */
  boolean isLocalPrimary(K key);

  /**
   * Returns the names of its owners in this member's current view, primary first (empty in
   * invalidation mode).
   *
   * @param segment a segment, in [0, {@link ClusterConfig#segments()})
   */
  List<String> segmentOwners(int segment);

  /**
   * Returns the attributes it joined with ({@link ClusterConfig.Builder#attribute}); empty if it
   * gave none or is not in the current view.
   *
   * @param member a member's name, as {@link #members()} gives it
   */
  Map<String, String> memberAttributes(String member);

  /**
   * The entries held in this member's own store (those it owns and its backup copies), decoded,
   * expired ones left out; weakly consistent with concurrent writes (an entry written or removed
   * during the walk may or may not be seen); nothing is asked of other members. For walks of this
   * member's share, such as a sweep of what it is primary of ({@link #isLocalPrimary}).
   *
   * @return an iterator, not thread-safe, that does not support remove
   */
  Iterator<Map.Entry<K, V>> localEntries();

  /**
   * Sets the receiver of the messages other members {@link #broadcast} and of this member's views.
   * Messages that arrive before it is set are dropped.
   *
   * @param receiver the receiver
   * @throws IllegalStateException if one was set already
   */
  void onMessages(MemberMessages receiver);

  /**
   * Sends a message to every other member of the current view, without waiting: each receives it
   * once, after every message this member broadcast before (per-sender order), unless it leaves the
   * view first. Never blocks (JGroups' flow control queues).
   *
   * @param payload the bytes, not copied: do not change them afterwards
   */
  void broadcast(byte[] payload);

  /**
   * As {@link #broadcast}, and returns once every other member of the current view has handed it to
   * its receiver (or has no receiver) or has left the view.
   *
   * @param payload the bytes, not copied: do not change them afterwards
   * @throws ClusterTimeoutException if a member neither answered nor left within {@link
   *     ClusterConfig#timeout()}
   */
  void broadcastAndWait(byte[] payload);
}
