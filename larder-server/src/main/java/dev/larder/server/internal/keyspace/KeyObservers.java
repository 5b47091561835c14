package dev.larder.server.internal.keyspace;

import java.util.List;

/**
 * Several {@link KeyObserver}s as one, each told of every change in the order given: how the
 * keyspace's one observer field reaches the blocked clients, notifications and tracking.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The first three observers are fields, each called from a call site of its own, and only the
 * ones after them from a loop: a loop over the array made one call site see every observer's class,
 * a megamorphic call on each write of each key (5% of MSET's server time), where a site per field
 * sees one class, which the compiler inlines (most observers return at once while nobody listens).
 *
 * <p>Thread-safe when its observers are; holds no state of its own.
 */
public final class KeyObservers implements KeyObserver {
  private final KeyObserver first;
  private final KeyObserver second;

  /** The third observer, or null if there are two. */
  private final KeyObserver third;

  /** The observers after the third, in order; empty if none. */
  private final KeyObserver[] more;

  private KeyObservers(List<KeyObserver> observers) {
    first = observers.get(0);
    second = observers.get(1);
    third = observers.size() > 2 ? observers.get(2) : null;
    more =
        observers.size() > 3
            ? observers.subList(3, observers.size()).toArray(KeyObserver[]::new)
            : new KeyObserver[0];
  }

  /**
   * Returns an observer that tells each of {@code observers}, in order.
   *
   * @param observers the observers, none null
   * @return the one observer (itself if there is only one, {@link KeyObserver#NONE} if none)
   * @throws NullPointerException if any is null
   */
  public static KeyObserver of(KeyObserver... observers) {
    List<KeyObserver> all = List.of(observers);
    return switch (all.size()) {
      case 0 -> KeyObserver.NONE;
      case 1 -> all.getFirst();
      default -> new KeyObservers(all);
    };
  }

  @Override
  public boolean wantsCreations() {
    if (first.wantsCreations() || second.wantsCreations()) {
      return true;
    }
    if (third == null) {
      return false;
    }
    if (third.wantsCreations()) {
      return true;
    }
    for (KeyObserver o : more) {
      if (o.wantsCreations()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    first.changed(storedKey, how);
    second.changed(storedKey, how);
    if (third != null) {
      third.changed(storedKey, how);
      for (KeyObserver o : more) {
        o.changed(storedKey, how);
      }
    }
  }

  @Override
  public void expired(byte[] storedKey) {
    first.expired(storedKey);
    second.expired(storedKey);
    if (third != null) {
      third.expired(storedKey);
      for (KeyObserver o : more) {
        o.expired(storedKey);
      }
    }
  }

  @Override
  public void evicted(byte[] storedKey) {
    first.evicted(storedKey);
    second.evicted(storedKey);
    if (third != null) {
      third.evicted(storedKey);
      for (KeyObserver o : more) {
        o.evicted(storedKey);
      }
    }
  }

  @Override
  public void flushed(int db) {
    first.flushed(db);
    second.flushed(db);
    if (third != null) {
      third.flushed(db);
      for (KeyObserver o : more) {
        o.flushed(db);
      }
    }
  }
}
