package dev.larder.server.internal.blocking;

import dev.larder.server.internal.keyspace.KeyObserver;
import dev.larder.server.internal.keyspace.Keyspace;
import dev.larder.server.internal.keyspace.ValueType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;

/**
 * The clients blocked on keys (BLPOP and its kin), and the keys written since they blocked: Redis's
 * blocking machinery, for any command that waits for a key to hold a value of some type.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Each key has a queue of {@link Waiter}s in the order they blocked. The registry is one of the
 * keyspace's observers ({@link dev.larder.server.internal.keyspace.KeyObservers}), told of every
 * key changed ({@link #changed}); a value stored at a key someone waits on marks it ready (a
 * removal does not: it cannot serve anyone). After a command has run and released its lock, its
 * connection calls {@link #serveReady}, which takes the keyspace's exclusive lock and, for each
 * ready key, offers it to its waiters first come, first served, until one finds nothing of its type
 * ({@link Waiter.Outcome#EMPTY}); later waiters of that type are skipped, others (a sorted-set
 * waiter behind a list waiter) still get their turn. Serving may write other keys (BLMOVE's
 * destination), which become ready in turn.
 *
 * <p>Concurrency. A blocking command runs under the keyspace's shared lock: it registers its
 * waiter, then tries once more to take what it wants, and withdraws the waiter if that succeeds.
 * Serving runs under the exclusive lock, so it never overlaps a command that is blocking, timing
 * out or closing (each holds the shared lock while it registers or withdraws), and a waiter's state
 * changes under this registry's monitor only. No wake-up is lost: a write that the blocking
 * command's own attempt did not see happened after that attempt, and the keyspace reports a change
 * after applying it, hence after the registration: the report finds the waiter registered. The
 * monitor is never held while calling into the keyspace (serving calls waiters outside it); the
 * keyspace may report while it holds a key's stripe, so the lock order is stripe, then monitor.
 *
 * <p>What serving does not give: a write is served after its command has released its lock, so a
 * command of another connection may take a pushed element before a blocked client does, as if it
 * had run first. The writer's own reply is sent after the serving, so a client never sees its
 * push's reply before the blocked clients have been offered the element.
 *
 * <p>Thread-safe.
 */
public final class BlockedClients implements KeyObserver {
  private final Keyspace keyspace;

  // guarded by this
  private final Map<Key, ArrayDeque<Waiter>> waiting = new HashMap<>();
  private final Set<Key> ready = new LinkedHashSet<>();

  private volatile int blocked;
  private volatile boolean anyReady;

  /**
   * A registry for the clients of one keyspace. Its owner makes it one of the keyspace's observers,
   * before any command runs.
   *
   * @param keyspace the keyspace
   */
  public BlockedClients(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  /** Returns the number of clients blocked now (INFO's {@code blocked_clients}). */
  public int blockedCount() {
    return blocked;
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    if (blocked == 0 || (how & REMOVED) != 0) {
      return;
    }
    Key key = new Key(storedKey);
    synchronized (this) {
      if (waiting.containsKey(key)) {
        ready.add(key);
        anyReady = true;
      }
    }
  }

  /** Expired keys hold nothing to serve. */
  @Override
  public void expired(byte[] storedKey) {}

  /** Evicted keys hold nothing to serve. */
  @Override
  public void evicted(byte[] storedKey) {}

  /** Flushed keys hold nothing to serve. */
  @Override
  public void flushed(int db) {}

  /**
   * Registers a waiter on each of its keys, behind the waiters already there. The caller holds the
   * keyspace's shared lock, and tries once more to serve itself after this (see the notes).
   *
   * @param waiter a waiter not registered before
   */
  public synchronized void block(Waiter waiter) {
    if (waiter.registered) {
      throw new IllegalStateException("waiter already registered");
    }
    for (byte[] stored : waiter.storedKeys()) {
      ArrayDeque<Waiter> queue = waiting.computeIfAbsent(new Key(stored), k -> new ArrayDeque<>());
      if (!queue.contains(waiter)) {
        queue.addLast(waiter);
      }
    }
    waiter.registered = true;
    blocked++;
  }

  /**
   * Withdraws a waiter that still waits (its timeout, its connection closing, or its own second
   * attempt succeeding). The caller holds the keyspace's shared lock.
   *
   * @param waiter a waiter
   * @return whether it was still waiting: false if it was served or withdrawn already
   */
  public synchronized boolean cancel(Waiter waiter) {
    if (!waiter.registered) {
      return false;
    }
    waiter.registered = false;
    blocked--;
    for (byte[] stored : waiter.storedKeys()) {
      Key key = new Key(stored);
      ArrayDeque<Waiter> queue = waiting.get(key);
      if (queue != null) {
        queue.remove(waiter);
        if (queue.isEmpty()) {
          waiting.remove(key);
          ready.remove(key);
        }
      }
    }
    return true;
  }

  /**
   * Withdraws the waiter of a client, if it has one that still waits (CLIENT UNBLOCK): like {@link
   * #cancel}, exactly one of a serving, a timeout, a cancel and this ends a waiter. The caller
   * holds the keyspace's shared or exclusive lock, and answers the waiter's client itself.
   *
   * @param client a client id
   * @return the withdrawn waiter, or null if that client waits on no key
   */
  public synchronized Waiter withdraw(long client) {
    if (blocked == 0) {
      return null;
    }
    for (ArrayDeque<Waiter> queue : waiting.values()) {
      for (Waiter w : queue) {
        if (w.client() == client) {
          cancel(w);
          return w;
        }
      }
    }
    return null;
  }

  /**
   * Serves the waiters of every key written since the last call, if there are any. Called after a
   * command, with no keyspace lock held; takes the exclusive lock only when a key is ready.
   */
  public void serveReady() {
    if (!anyReady) {
      return;
    }
    Lock exclusive = keyspace.exclusive();
    exclusive.lock();
    try {
      Key key;
      while ((key = nextReady()) != null) {
        serve(key);
      }
    } finally {
      exclusive.unlock();
    }
  }

  /**
   * Marks every key someone waits on as ready, then serves them: for writes the keyspace does not
   * report here (a push through another member of a cluster). Called periodically, with no keyspace
   * lock held; does nothing while no client is blocked.
   */
  public void recheckAll() {
    if (blocked == 0) {
      return;
    }
    synchronized (this) {
      ready.addAll(waiting.keySet());
      anyReady = !ready.isEmpty();
    }
    serveReady();
  }

  private synchronized Key nextReady() {
    Iterator<Key> it = ready.iterator();
    if (!it.hasNext()) {
      anyReady = false;
      return null;
    }
    Key key = it.next();
    it.remove();
    return key;
  }

  private synchronized List<Waiter> queueOf(Key key) {
    ArrayDeque<Waiter> queue = waiting.get(key);
    return queue == null ? List.of() : new ArrayList<>(queue);
  }

  private void serve(Key key) {
    byte[] clientKey = Arrays.copyOfRange(key.stored, 1, key.stored.length);
    Set<ValueType> exhausted = EnumSet.noneOf(ValueType.class);
    for (Waiter w : queueOf(key)) {
      if (exhausted.contains(w.type()) || !isRegistered(w)) {
        continue;
      }
      if (w.serve(clientKey) == Waiter.Outcome.DONE) {
        cancel(w);
      } else {
        exhausted.add(w.type());
      }
    }
  }

  private synchronized boolean isRegistered(Waiter w) {
    return w.registered;
  }

  /** A stored key with value equality. */
  @SuppressWarnings("ArrayRecordComponent") // equals and hashCode compare the content
  private record Key(byte[] stored) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(stored, k.stored);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(stored);
    }

    @Override
    public String toString() {
      return "Key" + Arrays.toString(stored);
    }
  }
}
