package dev.larder.jcache.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * Runs one load per key at a time: callers that miss a key while its load is in flight wait for
 * that load and share its value or its exception, instead of loading again. Loads of different
 * keys never wait for each other. Thread-safe.
 *
 * <p>The in-flight table holds a key only while its load runs; the loading caller removes it,
 * whatever the outcome, before returning.
 */
final class SingleFlight<K, V> {

  private final ConcurrentMap<K, CompletableFuture<V>> inFlight = new ConcurrentHashMap<>();

  /**
   * @param key the key to load
   * @param loader loads it; runs on the calling thread of the first caller
   * @return the loaded value, or null
   */
  V load(K key, Function<K, V> loader) {
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return join(running);
    }
    try {
      V value = loader.apply(key);
      mine.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(key, mine);
    }
  }

  private static <V> V join(CompletableFuture<V> running) {
    try {
      return running.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }
}
