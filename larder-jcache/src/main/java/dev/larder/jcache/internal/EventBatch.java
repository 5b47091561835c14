package dev.larder.jcache.internal;

import java.util.ArrayList;
import java.util.List;
import javax.cache.event.CacheEntryListenerException;

/**
 * The entry events of one cache operation, collected while it runs and delivered when it has made
 * its change: to synchronous listeners before the operation returns, to asynchronous ones through
 * their queues. Not thread-safe; one batch belongs to one operation.
 */
final class EventBatch<K, V> {

  private final List<JCacheEntryEvent<K, V>> events = new ArrayList<>(2);

  void add(JCacheEntryEvent<K, V> event) {
    events.add(event);
  }

  /**
   * Delivers the events to every registration, then clears the batch. Every registration is served
   * even if one fails; the first synchronous failure is then thrown, a runtime exception as (or
   * wrapped in) {@link CacheEntryListenerException}, an {@link Error} as it is.
   *
   * @param registrations the cache's listener registrations
   */
  void dispatch(Iterable<ListenerRegistration<K, V>> registrations) {
    if (events.isEmpty()) {
      return;
    }
    Throwable failure = null;
    for (ListenerRegistration<K, V> registration : registrations) {
      try {
        registration.deliver(events);
      } catch (RuntimeException | Error e) {
        failure = failure == null ? e : failure;
      }
    }
    events.clear();
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure instanceof CacheEntryListenerException listenerException) {
      throw listenerException;
    }
    if (failure != null) {
      throw new CacheEntryListenerException("a cache entry listener failed: " + failure, failure);
    }
  }
}
