package dev.larder.jcache.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * Runs one load per key at a time: callers that miss a key while its load is in flight wait for
 * that load and share its value or its exception, instead of loading again. Loads of different keys
 * never wait for each other. Thread-safe.
 *
 * <p>The in-flight table holds a key only while its load runs; the loading caller removes it,
 * whatever the outcome, before returning.
 *
 * <p>A write to a key while it loads marks the load superseded ({@link #supersede}); the loader is
 * given the mark to ask before it stores, so that a value read before the write's change is not put
 * back after it.
 */
final class SingleFlight<K, V> {

  private final ConcurrentMap<K, Flight<V>> inFlight = new ConcurrentHashMap<>();

  /**
   * Returns the loaded value, or null.
   *
   * @param key the key to load
   * @param loader loads it, given whether a write has superseded the load so far; runs on the
   *     calling thread of the first caller
   */
  V load(K key, BiFunction<K, BooleanSupplier, V> loader) {
    Flight<V> mine = new Flight<>();
    Flight<V> running = inFlight.putIfAbsent(key, mine);
    if (running != null) {
      return join(running.future);
    }
    try {
      V value = loader.apply(key, () -> mine.superseded);
      mine.future.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      mine.future.completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(key, mine);
    }
  }

  /**
   * Marks the load of {@code key} in flight, if any, superseded. A writer calls it while it holds
   * the key's lock, which the loader's store takes too, so a store after the write sees it.
   */
  void supersede(K key) {
    if (inFlight.isEmpty()) {
      return;
    }
    Flight<V> flight = inFlight.get(key);
    if (flight != null) {
      flight.superseded = true;
    }
  }

  /** Marks every load in flight superseded, before a write that covers every key. */
  void supersedeAll() {
    for (Flight<V> flight : inFlight.values()) {
      flight.superseded = true;
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

  private static final class Flight<V> {
    final CompletableFuture<V> future = new CompletableFuture<>();
    volatile boolean superseded;
  }
}
