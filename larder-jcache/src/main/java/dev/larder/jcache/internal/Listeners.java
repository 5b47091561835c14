package dev.larder.jcache.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import javax.cache.configuration.CacheEntryListenerConfiguration;

/**
 * A cache's entry listener registrations. Registration is rare and dispatch is on every write, so
 * the list is copy-on-write: dispatch iterates a snapshot without locking. Thread-safe.
 */
final class Listeners<K, V> {

  private final List<ListenerRegistration<K, V>> registrations = new CopyOnWriteArrayList<>();
  private final Executor executor;

  Listeners(Executor executor) {
    this.executor = executor;
  }

  /**
   * @param configuration the listener to add
   * @throws IllegalArgumentException if an equal configuration is registered already
   */
  synchronized void register(CacheEntryListenerConfiguration<K, V> configuration) {
    for (ListenerRegistration<K, V> registration : registrations) {
      if (registration.configuration().equals(configuration)) {
        throw new IllegalArgumentException("listener configuration already registered");
      }
    }
    registrations.add(new ListenerRegistration<>(configuration, executor));
  }

  /** Returns true if the configuration was registered and is now removed. */
  synchronized boolean deregister(CacheEntryListenerConfiguration<K, V> configuration) {
    for (ListenerRegistration<K, V> registration : registrations) {
      if (registration.configuration().equals(configuration)) {
        registrations.remove(registration);
        registration.close();
        return true;
      }
    }
    return false;
  }

  /** Delivers an operation's events; see {@link EventBatch#dispatch}. */
  void dispatch(EventBatch<K, V> events) {
    events.dispatch(registrations);
  }

  /** Closes every listener and filter that is closeable. */
  void close() {
    registrations.forEach(ListenerRegistration::close);
  }
}
