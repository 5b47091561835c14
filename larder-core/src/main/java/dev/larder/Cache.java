package dev.larder;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A bounded, concurrent cache that stores keys and values as the bytes their codecs produce.
 *
 * <p><b>Key identity.</b> Two keys are the same key exactly when their encoded bytes are equal;
 * {@code equals} and {@code hashCode} of the key objects are never called.
 *
 * <p><b>Values are copies.</b> A value is encoded on the way in and decoded on the way out, so
 * every read returns a fresh object and mutating it never changes the cache.
 *
 * <p><b>Thread safety.</b> All methods are safe to call from any number of threads. Reads take no
 * lock: they read optimistically and retry if a concurrent write to the same segment moved what
 * they read. A miss that runs the loader blocks only the callers waiting for that same key.
 *
 * <p><b>Bad input.</b> Null keys, values and functions throw {@link NullPointerException} naming
 * the argument. Any call after {@link #close()} throws {@link IllegalStateException}. A value that
 * can never fit the memory bound throws {@link IllegalArgumentException} and leaves the cache
 * unchanged: the write is refused before anything is evicted for it, and the message names the
 * largest entry (header, key and value bytes) the key's segment takes, which is its share of the
 * bound less its index, policy tables and one page kept free for eviction. A codec, loader or
 * mapping function that throws leaves the cache unchanged and its exception reaches the caller.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface Cache<K, V> extends AutoCloseable {

  /**
   * Starts a builder with explicit codecs.
   *
   * @param keyCodec encodes keys; defines key equality
   * @param valueCodec encodes values
   * @param <K> key type
   * @param <V> value type
   * @return a new builder
   * @throws IllegalArgumentException if {@code keyCodec} is not {@linkplain Codec#deterministic()
   *     deterministic} ({@code Codecs.set}, {@code Codecs.map}, dictionary substitution, or a codec
   *     composed of one): the cache finds keys by their bytes, so equal keys must encode alike
   */
  static <K, V> CacheBuilder<K, V> builder(Codec<K> keyCodec, Codec<V> valueCodec) {
    return new CacheBuilder<>(keyCodec, valueCodec);
  }

  /**
   * Starts a builder with the built-in codecs for the given types.
   *
   * @param keyType key class
   * @param valueType value class
   * @param <K> key type
   * @param <V> value type
   * @return a new builder
   * @throws IllegalArgumentException if a type has no built-in codec; the message names it
   */
  static <K, V> CacheBuilder<K, V> builder(Class<K> keyType, Class<V> valueType) {
    return new CacheBuilder<>(Codecs.forType(keyType), Codecs.forType(valueType));
  }

  /**
   * Returns the value for {@code key}, loading it with the configured loader on a miss. Without a
   * loader this is {@link #getIfPresent}. Concurrent misses on one key run the loader once; a write
   * to the key during the load wins, as for {@link #get(Object, Function)}.
   *
   * @param key the key
   * @return the value, or null if absent and there is no loader or the loader returned null
   * @throws CacheLoadingException wrapping a checked exception thrown by the loader
   * @throws IllegalArgumentException if the loaded entry can never fit the bound (as {@link #put});
   *     callers that waited on the same load get it too
   */
  V get(K key);

  /**
   * Returns the cached value, or null if absent or expired; never loads.
   *
   * @param key the key
   */
  V getIfPresent(K key);

  /**
   * Reads {@code key}'s value in place, without a copy: {@code reader} gets a read-only {@link
   * java.nio.ByteBuffer} over the value's bytes as the cache stores them (for {@code byte[]}
   * values, through {@link Codecs#bytes()}, the value itself; for other types, their codec's
   * encoding), positioned at 0 with its limit at the value's length, and what it returns is
   * returned. Like {@link #getIfPresent}, it is an access (for eviction and expire-after-access)
   * and counts as a hit or a miss in the statistics; it never loads.
   *
   * <p>The read takes no lock and never blocks a writer, so a write, eviction or {@link #close()}
   * may move or free the bytes while {@code reader} runs. The cache checks afterwards, as it checks
   * a copy: if the bytes changed under the call, its result (or the exception it threw) is
   * discarded and {@code reader} is called again on the current value. So {@code reader} may run
   * more than once, and on inconsistent bytes in a call whose result is then thrown away: it must
   * have no side effects that matter and must tolerate any bytes (an exception is fine; it reaches
   * the caller only from a call that saw the value whole).
   *
   * <p>The buffer is valid only during the call. Kept beyond it, reading it does not crash or fault
   * (it keeps the memory it views mapped), but it may show another entry's bytes or zeros: copy
   * what must outlive the call.
   *
   * @param key the key
   * @param reader reads the value's bytes; runs outside any lock, on the calling thread
   * @param <R> what the reader returns
   * @return the reader's result, or null if the key is absent or expired (then it is not called)
   * @throws RuntimeException what {@code reader} threw on a whole value
   */
  <R> R read(K key, Function<? super java.nio.ByteBuffer, ? extends R> reader);

  /**
   * Returns the value for {@code key}, computing it with {@code mappingFunction} if absent.
   * Concurrent callers for the same absent key wait for one computation and share its value or its
   * exception. A null result stores nothing and is returned as null. A write to the key while the
   * computation runs (put, remove, invalidate, compute, invalidateAll) wins: the computed value is
   * returned to the callers already waiting but not stored, and a caller that arrives after the
   * write returned does not join that computation: it starts or joins one that began after the
   * write. So an invalidation made after a change to the data behind the cache cannot be undone by
   * a load that read the data before the change, neither in the cache nor in what later reads
   * return. Writers never wait for the computation.
   *
   * @param key the key
   * @param mappingFunction computes the value; runs outside any lock
   * @return the present or computed value
   * @throws IllegalArgumentException if the computed entry can never fit the bound (as {@link
   *     #put}); callers that waited on the same computation get it too
   */
  V get(K key, Function<? super K, ? extends V> mappingFunction);

  /**
   * Returns the values present for {@code keys}, loading the missing ones with the loader if one is
   * configured.
   *
   * @param keys the keys; duplicates are allowed
   * @return an unmodifiable map of the keys that have values
   */
  Map<K, V> getAll(Iterable<? extends K> keys);

  /**
   * Associates {@code value} with {@code key}, replacing any previous value.
   *
   * @param key the key
   * @param value the value
   * @throws IllegalArgumentException if the entry can never fit the bound
   */
  void put(K key, V value);

  /**
   * Puts every entry of {@code map}, one {@link #put} each, after checking them all: a null key or
   * value, a codec's exception or an entry that can never fit throws before any entry is stored.
   * Not atomic otherwise: concurrent readers may see some entries before the others.
   *
   * @param map entries to put
   * @throws IllegalArgumentException if an entry can never fit the bound; nothing is stored
   */
  void putAll(Map<? extends K, ? extends V> map);

  /**
   * Returns the value already present, or null if {@code value} was stored.
   *
   * @param key the key
   * @param value stored only if no value is present
   */
  V putIfAbsent(K key, V value);

  /**
   * Returns the previous value, or null if absent (nothing stored).
   *
   * @param key the key
   * @param value stored only if a value is present
   */
  V replace(K key, V value);

  /**
   * Replaces the value only if the current one equals {@code oldValue}. Values are compared by
   * their encoded bytes, which decides for a {@linkplain dev.larder.codec.Codec#deterministic()
   * deterministic} value codec; with one that is not (a plain set, dictionary substitution), bytes
   * that differ are followed by a comparison of the decoded value with {@code equals}.
   *
   * @param key the key
   * @param oldValue expected current value
   * @param newValue replacement
   * @return true if replaced
   */
  boolean replace(K key, V oldValue, V newValue);

  /**
   * Returns the removed value, or null if absent.
   *
   * @param key the key
   */
  V remove(K key);

  /**
   * Removes the entry only if its value equals {@code value}, compared as by {@link
   * #replace(Object, Object, Object)}.
   *
   * @param key the key
   * @param value expected current value
   * @return true if removed
   */
  boolean remove(K key, V value);

  /**
   * Removes {@code key} without decoding its value; cheaper than {@link #remove(Object)}.
   *
   * @param key the key
   */
  void invalidate(K key);

  /**
   * Removes every entry. Removal listeners see cause {@link RemovalCause#EXPLICIT}. Off heap, a
   * background thread gives the entries' memory back to the system as this returns; a write that
   * follows at once may first finish that for its own segment.
   */
  void invalidateAll();

  /**
   * Discards the entries of the given keys, where present.
   *
   * @param keys keys to remove
   */
  void invalidateAll(Iterable<? extends K> keys);

  /**
   * Atomically recomputes the value of {@code key}. The function runs outside any lock and may be
   * called more than once if another writer changes the key meanwhile, so it should be free of side
   * effects (as {@link ConcurrentMap#compute} allows).
   *
   * @param key the key
   * @param remappingFunction given the key and the current value (or null); a null result removes
   *     the entry
   * @return the new value, or null if removed
   */
  V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction);

  /**
   * Tells whether the key has a value, without it counting as an access: the eviction policy does
   * not hear of it and an expire-after-access deadline does not move (as in Guava and Caffeine).
   *
   * @param key the key
   * @return true if a live, unexpired value is present
   */
  boolean containsKey(K key);

  /**
   * Returns the number of entries, exact at quiescence, approximate under concurrent writes; counts
   * expired entries until they are reclaimed (by {@link #cleanUp}, writes or the background sweep),
   * unlike {@code asMap().size()}.
   */
  long estimatedSize();

  /**
   * The figure the byte bound is enforced on: what the cache has reserved. It counts every page at
   * its capacity (free space included) plus 224 bytes for the page's objects, the index, the policy
   * tables made so far, and fixed estimates of the cache's other objects (1,024 bytes for the
   * cache, 640 a segment); never more than the configured maximum memory. It is not a measurement
   * of the process: for a large cache it agrees with what the process gains to within 1%, but a
   * small cache holds less than it reports, since a segment's first page is a heap array that grows
   * as it fills rather than a whole page, and a cache holds no segment until it is first used. What
   * 2,000 caches bounded to 1,000 entries really hold ({@code ./larder bench startup}): unused,
   * about 400 bytes of heap each, where this reports 1,024; with 100 entries of 100 bytes and
   * 10-character keys, about 14 KB of heap and, off the heap, no page, where this reports 19,376
   * (docs/cache.md, "Small caches").
   *
   * @return bytes reserved by the cache
   */
  long memoryUsed();

  /**
   * Returns the byte bound given to {@link CacheBuilder#maximumMemory}, the dictionary's share
   * included, or empty if the cache is bounded by entries or unbounded.
   */
  OptionalLong maximumMemory();

  /** Returns the bound given to {@link CacheBuilder#maximumEntries}, or empty if there is none. */
  OptionalLong maximumEntries();

  /**
   * Returns the dictionary declared with {@link CacheBuilder#dictionary}, whose memory {@link
   * #memoryUsed()} counts, or empty.
   */
  Optional<ValueDictionary> dictionary();

  /**
   * Returns whether the cache was built with {@link CacheBuilder#recordStats()}; without it {@link
   * #stats()} stays all zero.
   */
  boolean recordsStats();

  /** Returns a snapshot of the statistics; all zero if statistics are off. */
  CacheStats stats();

  /**
   * Runs pending maintenance now: reclaims expired entries and drains access buffers. Maintenance
   * also runs on writes and on the configured executor.
   */
  void cleanUp();

  /**
   * Returns a live view. Its {@code get}, {@code put} and the other single-key operations are this
   * cache's; iterating its key, value and entry views, {@code containsKey} and {@code
   * containsValue} are not accesses (eviction does not hear of them, expire-after-access deadlines
   * do not move), so a job that walks every entry leaves the cache as it found it. Its {@code size}
   * and {@code isEmpty} agree with iteration: where entries expire, they first reclaim the expired
   * ones (as {@link #cleanUp}, a pass over the whole index). {@code computeIfAbsent} is {@link
   * #get(Object, Function)}.
   *
   * @return a live {@link ConcurrentMap} view backed by this cache
   */
  ConcurrentMap<K, V> asMap();

  /**
   * Releases all memory: a background thread gives off-heap pages' memory back to the system as
   * this returns, and their address space goes once the garbage collector finds that no thread
   * still racing this call can reach them; close stops no thread and waits for no reader (nor for
   * the kernel). Idempotent. Afterwards every call except {@code close} throws {@link
   * IllegalStateException}, those of the map view and queries such as {@link #estimatedSize},
   * {@link #memoryUsed} and {@link #stats} included, and so do calls that would touch no entry
   * ({@code getAll}, {@code putAll} and {@code invalidateAll} of nothing); calls racing with close
   * either complete or throw it. A cache that becomes unreachable without being closed still frees
   * its memory, off the heap too, but only when the garbage collector notices, and with a logged
   * warning.
   */
  @Override
  void close();
}
