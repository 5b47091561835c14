package dev.larder.jcache.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import javax.cache.Cache;

/**
 * Iterates a cache's live entries over a weakly consistent iterator of its store. Each entry
 * returned counts as a hit and as an access for expiry; {@link #remove} removes through the writer
 * and reports REMOVED, exactly like {@code Cache.remove(key)}. Not thread-safe, as iterators are
 * not.
 */
final class EntryIterator<K, V> implements Iterator<Cache.Entry<K, V>> {

  private final LarderJCache<K, V> cache;
  private final Iterator<Map.Entry<K, Expirable<V>>> source;
  private EntryView<K, V> next;
  private EntryView<K, V> last;

  EntryIterator(LarderJCache<K, V> cache, Iterator<Map.Entry<K, Expirable<V>>> source) {
    this.cache = cache;
    this.source = source;
  }

  @Override
  public boolean hasNext() {
    while (next == null && source.hasNext()) {
      Map.Entry<K, Expirable<V>> candidate = source.next();
      long start = cache.statisticsStart();
      long now = cache.now();
      if (!candidate.getValue().isExpiredAt(now)) {
        next = new EntryView<>(candidate.getKey(), candidate.getValue().value());
        cache.visited(candidate.getKey(), now, start);
      }
    }
    return next != null;
  }

  @Override
  public Cache.Entry<K, V> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    last = next;
    next = null;
    return last;
  }

  @Override
  public void remove() {
    if (last == null) {
      throw new IllegalStateException("next() has not returned an entry to remove");
    }
    K key = last.getKey();
    last = null;
    cache.remove(key);
  }
}
