package dev.larder.jcache.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;

/**
 * One registered entry listener: its configuration, the listener and filter its factories made, and
 * for an asynchronous listener the serial queue that delivers to it.
 *
 * <p>{@link #deliver} filters a batch of events, keeps those the listener has a callback for, and
 * calls it once per run of consecutive events of one type, so that the order of events is kept. A
 * synchronous listener is called on the caller's thread and its exception propagates; an
 * asynchronous one is called on its queue and its exception is logged.
 */
final class ListenerRegistration<K, V> {

  private final CacheEntryListenerConfiguration<K, V> configuration;
  private final CacheEntryListener<? super K, ? super V> listener;
  private final CacheEntryEventFilter<? super K, ? super V> filter;
  private final SerialExecutor queue;

  ListenerRegistration(CacheEntryListenerConfiguration<K, V> configuration, Executor executor) {
    this.configuration = configuration;
    this.listener = configuration.getCacheEntryListenerFactory().create();
    Factory<CacheEntryEventFilter<? super K, ? super V>> filterFactory =
        configuration.getCacheEntryEventFilterFactory();
    this.filter = filterFactory == null ? null : filterFactory.create();
    this.queue = configuration.isSynchronous() ? null : new SerialExecutor(executor);
  }

  CacheEntryListenerConfiguration<K, V> configuration() {
    return configuration;
  }

  /**
   * @param events the events of one cache operation, in order
   */
  void deliver(List<JCacheEntryEvent<K, V>> events) {
    List<JCacheEntryEvent<K, V>> wanted = select(events);
    if (wanted.isEmpty()) {
      return;
    }
    if (queue == null) {
      callInRuns(wanted);
    } else {
      queue.execute(() -> callInRuns(wanted));
    }
  }

  private List<JCacheEntryEvent<K, V>> select(List<JCacheEntryEvent<K, V>> events) {
    List<JCacheEntryEvent<K, V>> wanted = new ArrayList<>(events.size());
    for (JCacheEntryEvent<K, V> event : events) {
      if (handles(event.getEventType()) && (filter == null || filter.evaluate(event))) {
        wanted.add(event.forListener(configuration.isOldValueRequired()));
      }
    }
    return wanted;
  }

  private boolean handles(EventType type) {
    return switch (type) {
      case CREATED -> listener instanceof CacheEntryCreatedListener;
      case UPDATED -> listener instanceof CacheEntryUpdatedListener;
      case REMOVED -> listener instanceof CacheEntryRemovedListener;
      case EXPIRED -> listener instanceof CacheEntryExpiredListener;
    };
  }

  private void callInRuns(List<JCacheEntryEvent<K, V>> events) {
    int start = 0;
    while (start < events.size()) {
      EventType type = events.get(start).getEventType();
      int end = start + 1;
      while (end < events.size() && events.get(end).getEventType() == type) {
        end++;
      }
      call(type, events.subList(start, end));
      start = end;
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void call(EventType type, List<JCacheEntryEvent<K, V>> run) {
    Iterable events = List.copyOf(run);
    switch (type) {
      case CREATED -> ((CacheEntryCreatedListener) listener).onCreated(events);
      case UPDATED -> ((CacheEntryUpdatedListener) listener).onUpdated(events);
      case REMOVED -> ((CacheEntryRemovedListener) listener).onRemoved(events);
      case EXPIRED -> ((CacheEntryExpiredListener) listener).onExpired(events);
    }
  }

  /** Closes the listener and filter if they are {@link AutoCloseable}. */
  void close() {
    Closing.quietly(listener);
    Closing.quietly(filter);
  }
}
