package dev.larder.jcache.internal;

import java.util.Iterator;
import java.util.Map;

/**
 * Where a JCache cache keeps its entries: Larder's byte store for store-by-value caches ({@link
 * ByteEntryStore}), a heap map for store-by-reference ones ({@link ReferenceEntryStore}).
 *
 * <p>The store is a plain map with no JCache semantics: expiry times are data to it, and it fires
 * no events. {@link LarderJCache} serializes the writes to each key with its key locks, so the
 * store needs no conditional operations. Implementations are thread-safe.
 *
 * @param <K> key type
 * @param <V> value type
 */
interface EntryStore<K, V> {

  /** Returns the stored entry, expired or not, or null; a copy in a store-by-value store. */
  Expirable<V> get(K key);

  /**
   * Fails fast, before any writer is called, for an entry this store can tell it cannot encode.
   *
   * @throws IllegalArgumentException if the key or value can never be stored
   */
  default void checkStorable(K key, V value) {}

  /** Stores or replaces an entry. */
  void put(K key, Expirable<V> entry);

  /** Removes an entry if present. */
  void remove(K key);

  /** Returns a weakly consistent iterator over the stored entries, expired ones included. */
  Iterator<Map.Entry<K, Expirable<V>>> iterator();

  /** Removes every entry. */
  void clear();

  /** Returns the number of stored entries, expired ones included. */
  long size();

  /**
   * Returns true if they are the same value by this store's equality: {@code equals} or equal
   * encoded bytes for a store-by-value store (so arrays compare by content, and values whose
   * encoding depends on more than their state, such as serialized hash collections, by {@code
   * equals}), {@code equals} for a store-by-reference one.
   *
   * @param stored a stored value
   * @param expected a caller's value
   */
  boolean sameValue(V stored, V expected);

  /** Returns bytes reserved by the store, or -1 when it cannot tell (heap objects). */
  long memoryUsed();

  /** Releases the store's memory. */
  void close();

  /**
   * Returns the underlying store object if it is of that type, else null.
   *
   * @param type a class to unwrap to
   */
  <T> T unwrap(Class<T> type);
}
