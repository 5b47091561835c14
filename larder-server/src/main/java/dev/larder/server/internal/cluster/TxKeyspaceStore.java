package dev.larder.server.internal.cluster;

import dev.larder.Cache;
import dev.larder.CacheStats;
import dev.larder.LatencySummary;
import dev.larder.cluster.ClusterException;
import dev.larder.cluster.ClusteredTxMember;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.tx.Transaction;
import dev.larder.tx.TransactionConflictException;
import dev.larder.tx.TxCache;
import dev.larder.tx.TxCacheSpec;
import dev.larder.tx.TxStore;
import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The keyspace's store on a clustered server with {@code cluster-transactions on}: the stored keys
 * and values kept in a clustered transactional store ({@link ClusteredTxMember}), as the {@link
 * Cache} the {@code Keyspace} is built over. Every operation is a cluster transaction: one of its
 * own (a single-key command is a one-key transaction, retried on conflict; a write that does not
 * read is a blind commit that waits for a prepared transaction's lock), or, while a thread has one
 * bound ({@link #bind}), a step of that transaction (EXEC's queue: reads at its snapshot, writes
 * buffered until it commits).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Statistics are not recorded ({@link #recordsStats} is false, {@link #stats} zeros): the
 * keyspace keeps its own counters.
 *
 * <p><b>Failures inside a bound transaction.</b> The dispatcher turns a queued command's exception
 * into that command's error reply and runs the next one, so a conflict (or a cluster failure) met
 * by a step would be lost and the rest committed. A step therefore records it in the binding before
 * it rethrows, and the binding's owner ({@link ClusterTransactions#execute}) rolls the transaction
 * back and runs it again (a conflict) or fails it whole (a cluster failure).
 *
 * <p><b>Iteration</b> (KEYS, SCAN, DBSIZE, FLUSHDB, RANDOMKEY...) outside a transaction:
 * REPLICATED, every key this member holds at a snapshot of its own (a read-only transaction: one
 * consistent state, every commit acknowledged before it included); DISTRIBUTED, the newest
 * committed values of every primary (a round trip to each other member per walk), weakly consistent
 * (a commit acknowledged a moment before may not be applied at its primary yet). Inside a bound
 * transaction (EXEC), REPLICATED: the keys at the transaction's snapshot ({@link
 * ClusteredTxMember#forEachAt}), with the keys it wrote overlaid with its own values, so a KEYS
 * after a SET in one EXEC sees that SET and every other key as the EXEC's reads see it; if the EXEC
 * writes, its commit fails as a conflict (and it runs again) when any other commit created, changed
 * or removed a key after its snapshot, so what it listed is serializable with the rest.
 * DISTRIBUTED: refused (an {@code ERR} for the whole EXEC), since no member sees every key at a
 * snapshot and a walk of the newest values would mix states.
 *
 * <p>Thread-safe; a binding belongs to one thread.
 */
final class TxKeyspaceStore implements Cache<byte[], byte[]> {

  /** The one cache of the store: stored keys (database byte, then key) to stored values. */
  static final TxCacheSpec<byte[], byte[]> KEYSPACE =
      TxCacheSpec.of("keyspace", Codecs.bytes(), Codecs.bytes());

  /** This member of the store, its store and the keyspace's cache in it: null until attached. */
  private record Attached(ClusteredTxMember member, TxStore store, TxCache<byte[], byte[]> cache) {}

  private volatile Attached attached;

  /** Whether each key is held by its owners only (DISTRIBUTED), not by every member. */
  private final boolean distributed;

  /** The calling thread's bound transaction, on whichever store bound it. */
  private static final ThreadLocal<Binding> BOUND = new ThreadLocal<>();

  // the keyspace looks keys up through the map's methods, which compare them by content
  @SuppressWarnings("UndefinedEquals")
  private final MapView map = new MapView();

  /** A transaction bound to a thread, and what its steps met. Confined to that thread. */
  static final class Binding {
    final TxKeyspaceStore owner;
    final Transaction tx;

    /** Keys this transaction wrote, by content: iteration overlays them. */
    final Map<ByteBuffer, byte[]> written = new HashMap<>();

    /** The first conflict a step met: the transaction must run again. */
    TransactionConflictException conflict;

    /** The first cluster failure a step met: the transaction fails whole. */
    ClusterException failure;

    /** A step the store cannot run inside a transaction: the transaction fails whole. */
    UnsupportedOperationException unsupported;

    Binding(TxKeyspaceStore owner, Transaction tx) {
      this.owner = owner;
      this.tx = tx;
    }
  }

  /**
   * A store with no member yet: every read and write throws {@link IllegalStateException} (its size
   * and memory are 0) until {@link #attach} (a durable member binds its ports before its
   * transactional store has recovered and joined, and refuses the commands that would reach the
   * store meanwhile).
   *
   * @param distributed whether the store is DISTRIBUTED (its keys held by their owners only)
   */
  TxKeyspaceStore(boolean distributed) {
    this.distributed = distributed;
  }

  /**
   * Makes {@code member}, recovered and joined, the store's member; once only.
   *
   * @throws IllegalStateException if a member was attached already
   */
  synchronized void attach(ClusteredTxMember member) {
    if (attached != null) {
      throw new IllegalStateException("a member of the transactional store is attached already");
    }
    TxStore store = member.store();
    attached = new Attached(member, store, store.cache(KEYSPACE));
  }

  /** Returns whether a member was attached. */
  boolean isAttached() {
    return attached != null;
  }

  private Attached attached() {
    Attached a = attached;
    if (a == null) {
      throw new IllegalStateException(
          "this member's transactional store has not recovered and joined its cluster yet");
    }
    return a;
  }

  /**
   * Returns the member.
   *
   * @throws IllegalStateException before {@link #attach}
   */
  ClusteredTxMember member() {
    return attached().member();
  }

  /**
   * Returns the member's store.
   *
   * @throws IllegalStateException before {@link #attach}
   */
  TxStore store() {
    return attached().store();
  }

  private TxCache<byte[], byte[]> txCache() {
    return attached().cache();
  }

  /** Binds {@code tx} to the calling thread until {@link #unbind}; returns the binding. */
  Binding bind(Transaction tx) {
    Binding b = new Binding(this, tx);
    BOUND.set(b);
    return b;
  }

  /** Ends the calling thread's binding. */
  void unbind() {
    if (bound() != null) {
      BOUND.remove();
    }
  }

  /** Returns the calling thread's binding on this store, or null. */
  private Binding bound() {
    Binding b = BOUND.get();
    return b == null || b.owner != this ? null : b;
  }

  /**
   * Runs {@code step} in the calling thread's bound transaction, or in a transaction of its own
   * (retried on conflict up to {@link TxStore#SINGLE_OPERATION_ATTEMPTS} times).
   */
  private <R> R inTx(Function<Transaction, R> step) {
    Binding b = bound();
    if (b == null) {
      return store().inTransaction(TxStore.SINGLE_OPERATION_ATTEMPTS, step::apply);
    }
    try {
      return step.apply(b.tx);
    } catch (TransactionConflictException e) {
      if (b.conflict == null) {
        b.conflict = e;
      }
      throw e;
    } catch (ClusterException e) {
      if (b.failure == null) {
        b.failure = e;
      }
      throw e;
    }
  }

  private byte[] read(Transaction tx, byte[] key) {
    return tx.get(txCache(), key);
  }

  private void write(Transaction tx, byte[] key, byte[] value) {
    if (value == null) {
      tx.remove(txCache(), key);
    } else {
      tx.put(txCache(), key, value);
    }
    Binding b = bound();
    if (b != null) {
      b.written.put(ByteBuffer.wrap(key), key);
    }
  }

  @Override
  public byte[] get(byte[] key) {
    return getIfPresent(key);
  }

  @Override
  public byte[] get(byte[] key, Function<? super byte[], ? extends byte[]> mappingFunction) {
    return compute(key, (k, v) -> v != null ? v : mappingFunction.apply(k));
  }

  @Override
  public byte[] getIfPresent(byte[] key) {
    if (bound() == null) {
      return txCache().get(key);
    }
    return inTx(tx -> read(tx, key));
  }

  @Override
  public <R> R read(byte[] key, Function<? super ByteBuffer, ? extends R> reader) {
    byte[] value = getIfPresent(key);
    return value == null ? null : reader.apply(ByteBuffer.wrap(value).asReadOnlyBuffer());
  }

  /**
   * Reads the keys in one transaction (the bound one, or one of its own), so the values are of one
   * snapshot. The map's keys are the arrays given (an array compares by identity), in their order;
   * absent keys are left out.
   */
  @SuppressWarnings("UndefinedEquals") // Cache's contract: the arrays given are the map's keys
  @Override
  public Map<byte[], byte[]> getAll(Iterable<? extends byte[]> keys) {
    return inTx(
        tx -> {
          Map<byte[], byte[]> found = new LinkedHashMap<>();
          for (byte[] key : keys) {
            byte[] value = read(tx, key);
            if (value != null) {
              found.put(key, value);
            }
          }
          return found;
        });
  }

  @Override
  public void put(byte[] key, byte[] value) {
    if (bound() == null) {
      txCache().put(key, value);
      return;
    }
    inTx(
        tx -> {
          write(tx, key, value);
          return null;
        });
  }

  @Override
  public void putAll(Map<? extends byte[], ? extends byte[]> entries) {
    entries.forEach(this::put);
  }

  @Override
  public byte[] putIfAbsent(byte[] key, byte[] value) {
    return inTx(
        tx -> {
          byte[] current = read(tx, key);
          if (current == null) {
            write(tx, key, value);
          }
          return current;
        });
  }

  @Override
  public byte[] replace(byte[] key, byte[] value) {
    return inTx(
        tx -> {
          byte[] current = read(tx, key);
          if (current != null) {
            write(tx, key, value);
          }
          return current;
        });
  }

  @Override
  public boolean replace(byte[] key, byte[] oldValue, byte[] newValue) {
    return inTx(
        tx -> {
          if (!Arrays.equals(read(tx, key), oldValue)) {
            return false;
          }
          write(tx, key, newValue);
          return true;
        });
  }

  /** Puts and returns the value it replaced (the map view's {@code put}). */
  private byte[] swap(byte[] key, byte[] value) {
    return inTx(
        tx -> {
          byte[] current = read(tx, key);
          write(tx, key, value);
          return current;
        });
  }

  @Override
  public byte[] remove(byte[] key) {
    return inTx(
        tx -> {
          byte[] current = read(tx, key);
          if (current != null) {
            write(tx, key, null);
          }
          return current;
        });
  }

  @Override
  public boolean remove(byte[] key, byte[] value) {
    return inTx(
        tx -> {
          if (value == null || !Arrays.equals(read(tx, key), value)) {
            return false;
          }
          write(tx, key, null);
          return true;
        });
  }

  @Override
  public void invalidate(byte[] key) {
    if (bound() == null) {
      txCache().remove(key);
      return;
    }
    inTx(
        tx -> {
          write(tx, key, null);
          return null;
        });
  }

  @Override
  public void invalidateAll() {
    removeAll(k -> true);
  }

  @Override
  public void invalidateAll(Iterable<? extends byte[]> keys) {
    for (byte[] k : keys) {
      invalidate(k);
    }
  }

  /** Removes every key {@code which} accepts, in one transaction (or the bound one). */
  private boolean removeAll(Predicate<byte[]> which) {
    return inTx(
        tx -> {
          boolean any = false;
          for (Map.Entry<byte[], byte[]> e : entries()) {
            if (which.test(e.getKey())) {
              write(tx, e.getKey(), null);
              any = true;
            }
          }
          return any;
        });
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // the function returns the read array to leave it as is
  public byte[] compute(
      byte[] key, BiFunction<? super byte[], ? super byte[], ? extends byte[]> remappingFunction) {
    return inTx(
        tx -> {
          byte[] current = read(tx, key);
          byte[] next = remappingFunction.apply(key, current);
          // the same array back means "unchanged": no write, so no lock or conflict on the key
          if (next != current) {
            write(tx, key, next);
          }
          return next;
        });
  }

  @Override
  public boolean containsKey(byte[] key) {
    return getIfPresent(key) != null;
  }

  /** The store's estimate; 0 before a member is attached (it holds nothing yet). */
  @Override
  public long estimatedSize() {
    Attached a = attached;
    return a == null ? 0 : a.cache().estimatedSize();
  }

  /** The store's memory; 0 before a member is attached (INFO memory runs while loading). */
  @Override
  public long memoryUsed() {
    Attached a = attached;
    return a == null ? 0 : a.cache().memoryUsed();
  }

  @Override
  public OptionalLong maximumMemory() {
    return OptionalLong.empty();
  }

  @Override
  public OptionalLong maximumEntries() {
    return OptionalLong.empty();
  }

  @Override
  public Optional<ValueDictionary> dictionary() {
    return Optional.empty();
  }

  @Override
  public boolean recordsStats() {
    return false;
  }

  /** Zeros, as a cache built without statistics reports: the keyspace keeps its own counters. */
  @Override
  public CacheStats stats() {
    return new CacheStats(
        0, 0, 0, 0, 0, 0, 0, 0, LatencySummary.EMPTY, LatencySummary.EMPTY, LatencySummary.EMPTY);
  }

  @Override
  public void cleanUp() {}

  @Override
  public ConcurrentMap<byte[], byte[]> asMap() {
    return map;
  }

  /** Closes the member, which leaves its cluster; nothing to close before one was attached. */
  @Override
  public void close() {
    Attached a = attached;
    if (a != null) {
      a.member().close();
    }
  }

  /**
   * The keyspace's entries, a copy, so the caller may write while it walks it (see the class notes
   * on iteration). Outside a transaction: REPLICATED, this member's at a snapshot of its own (it
   * holds every key); DISTRIBUTED, every primary's newest, each key once, a round trip to every
   * other member. Inside the bound transaction (REPLICATED), the entries at its snapshot overlaid
   * with its own writes.
   *
   * @throws dev.larder.cluster.ClusterTimeoutException if, DISTRIBUTED, some member did not serve
   *     its keys within the cluster timeout
   * @throws UnsupportedOperationException inside a bound transaction of a DISTRIBUTED store
   * @throws TransactionConflictException inside a bound transaction whose snapshot cannot be read
   *     here (it runs again)
   */
  List<Map.Entry<byte[], byte[]>> entries() {
    Binding b = bound();
    if (b == null && !distributed) {
      // a read-only transaction of its own: every key at one snapshot, commits acknowledged
      // before it included (a walk of the newest applied values could miss one still pending)
      return store()
          .inTransaction(
              TxStore.SINGLE_OPERATION_ATTEMPTS,
              tx -> {
                List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
                member().forEachAt(tx, KEYSPACE, (k, v) -> out.add(Map.entry(k, v)));
                return out;
              });
    }
    if (b == null) {
      List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
      forEachInCluster((k, v) -> out.add(Map.entry(k, v)));
      return out;
    }
    if (distributed) {
      UnsupportedOperationException refused =
          new UnsupportedOperationException(
              "KEYS, SCAN, DBSIZE, RANDOMKEY, FLUSHDB and other walks of the keyspace are not"
                  + " supported inside MULTI/EXEC on a distributed transactional cluster (no member"
                  + " holds every key at the transaction's snapshot): run them outside the"
                  + " transaction");
      if (b.unsupported == null) {
        b.unsupported = refused;
      }
      throw refused;
    }
    Map<ByteBuffer, Map.Entry<byte[], byte[]>> all = new LinkedHashMap<>();
    inTx(
        tx -> {
          member().forEachAt(tx, KEYSPACE, (k, v) -> all.put(ByteBuffer.wrap(k), Map.entry(k, v)));
          return null;
        });
    for (Map.Entry<ByteBuffer, byte[]> w : new ArrayList<>(b.written.entrySet())) {
      byte[] v = inTx(tx -> read(tx, w.getValue()));
      if (v == null) {
        all.remove(w.getKey());
      } else {
        all.put(w.getKey(), Map.entry(w.getValue(), v));
      }
    }
    return new ArrayList<>(all.values());
  }

  /**
   * Walks the cluster's newest entries; a cluster failure inside a bound transaction fails it whole
   * (see the class notes), as a step's does.
   */
  private void forEachInCluster(BiConsumer<byte[], byte[]> action) {
    if (!distributed) {
      member().forEachNewest(KEYSPACE, false, action);
      return;
    }
    try {
      member().forEachNewestInCluster(KEYSPACE, action);
    } catch (ClusterException e) {
      Binding b = bound();
      if (b != null && b.failure == null) {
        b.failure = e;
      }
      throw e;
    }
  }

  /**
   * This member's newest committed entries of the keys it owns (every key in REPLICATED mode),
   * weakly consistent: what it holds itself, without asking other members.
   */
  Iterator<Map.Entry<byte[], byte[]>> ownedEntries() {
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    member().forEachNewest(KEYSPACE, false, (k, v) -> out.add(Map.entry(k, v)));
    return out.iterator();
  }

  /**
   * This member's entries it is the primary of (the expiry sweep's walk: each key swept by one
   * member), weakly consistent.
   */
  Iterator<Map.Entry<byte[], byte[]>> primaryEntries() {
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    member().forEachNewest(KEYSPACE, true, (k, v) -> out.add(Map.entry(k, v)));
    return out.iterator();
  }

  /** The map view the keyspace walks and writes through. */
  private final class MapView extends AbstractMap<byte[], byte[]>
      implements ConcurrentMap<byte[], byte[]> {

    @Override
    public Set<Map.Entry<byte[], byte[]>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Map.Entry<byte[], byte[]>> iterator() {
          Iterator<Map.Entry<byte[], byte[]>> it = entries().iterator();
          return new Iterator<>() {
            private Map.Entry<byte[], byte[]> last;

            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public Map.Entry<byte[], byte[]> next() {
              last = it.next();
              return last;
            }

            @Override
            public void remove() {
              if (last == null) {
                throw new IllegalStateException("next() first");
              }
              invalidate(last.getKey());
              last = null;
            }
          };
        }

        @Override
        public int size() {
          return entries().size();
        }
      };
    }

    @Override
    public byte[] get(Object key) {
      return key instanceof byte[] k ? getIfPresent(k) : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }

    @Override
    public byte[] put(byte[] key, byte[] value) {
      return swap(key, value);
    }

    @Override
    public byte[] remove(Object key) {
      return key instanceof byte[] k ? TxKeyspaceStore.this.remove(k) : null;
    }

    @Override
    public byte[] putIfAbsent(byte[] key, byte[] value) {
      return TxKeyspaceStore.this.putIfAbsent(key, value);
    }

    @Override
    public boolean remove(Object key, Object value) {
      return key instanceof byte[] k
          && value instanceof byte[] v
          && TxKeyspaceStore.this.remove(k, v);
    }

    @Override
    public boolean replace(byte[] key, byte[] oldValue, byte[] newValue) {
      return TxKeyspaceStore.this.replace(key, oldValue, newValue);
    }

    @Override
    public byte[] replace(byte[] key, byte[] value) {
      return TxKeyspaceStore.this.replace(key, value);
    }
  }
}
