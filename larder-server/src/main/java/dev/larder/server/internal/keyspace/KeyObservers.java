package dev.larder.server.internal.keyspace;

import java.util.List;

/**
 * Several {@link KeyObserver}s as one, each told of every change in the order given: how the
 * keyspace's one observer field reaches the blocked clients, notifications and tracking.
 *
 * <p>Thread-safe when its observers are; holds no state of its own.
 */
public final class KeyObservers implements KeyObserver {
  private final KeyObserver[] observers;

  private KeyObservers(List<KeyObserver> observers) {
    this.observers = observers.toArray(KeyObserver[]::new);
  }

  /**
   * Returns an observer that tells each of {@code observers}, in order.
   *
   * @param observers the observers, none null
   * @return the one observer (itself if there is only one)
   * @throws NullPointerException if any is null
   */
  public static KeyObserver of(KeyObserver... observers) {
    List<KeyObserver> all = List.of(observers);
    return all.size() == 1 ? all.getFirst() : new KeyObservers(all);
  }

  @Override
  public boolean wantsCreations() {
    for (KeyObserver o : observers) {
      if (o.wantsCreations()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void changed(byte[] storedKey, int how) {
    for (KeyObserver o : observers) {
      o.changed(storedKey, how);
    }
  }

  @Override
  public void expired(byte[] storedKey) {
    for (KeyObserver o : observers) {
      o.expired(storedKey);
    }
  }

  @Override
  public void evicted(byte[] storedKey) {
    for (KeyObserver o : observers) {
      o.evicted(storedKey);
    }
  }

  @Override
  public void flushed(int db) {
    for (KeyObserver o : observers) {
      o.flushed(db);
    }
  }
}
